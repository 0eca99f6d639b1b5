package io.brook.coordinator.group.share;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupType;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;

/**
 * A share group (KIP-932): members that share the partitions of the topics they subscribe to, each
 * record delivered to one of them at a time by the partition leaders. The group itself holds only
 * membership and its epoch; the delivery state of the records lives at the partition leaders.
 * Changed only by replaying its records, on the shard's thread.
 */
public final class ShareGroup implements Group {
  /** A topic the group has share state on: its name and the partitions. */
  public record StateTopic(String name, Set<Integer> partitions) {}

  private final String groupId;
  private final LongSupplier clock;
  private final Map<String, ShareGroupMember> members = new LinkedHashMap<>();
  private Map<Uuid, StateTopic> statePartitions = Map.of();
  private int groupEpoch;
  private long stateTimestampMs;

  ShareGroup(String groupId, LongSupplier clock) {
    this.groupId = groupId;
    this.clock = clock;
    this.stateTimestampMs = clock.getAsLong();
  }

  @Override
  public String groupId() {
    return groupId;
  }

  @Override
  public GroupType type() {
    return GroupType.SHARE;
  }

  /** Kafka's share group states: Empty or Stable (a share group never rebalances). */
  @Override
  public String stateName() {
    return members.isEmpty() ? "Empty" : "Stable";
  }

  @Override
  public String protocolType() {
    return "share";
  }

  @Override
  public boolean isEmpty() {
    return members.isEmpty();
  }

  @Override
  public long stateTimestampMs() {
    return stateTimestampMs;
  }

  @Override
  public boolean isSubscribedTo(String topic) {
    return members.values().stream().anyMatch(m -> m.subscribedTopicNames().contains(topic));
  }

  @Override
  public void validateOffsetCommit(
      String memberId, String groupInstanceId, int generationIdOrMemberEpoch, short apiVersion) {
    throw new GroupIdNotFoundException("Group " + groupId + " is a share group.");
  }

  @Override
  public void validateOffsetFetch(String memberId, int memberEpoch) {
    throw new GroupIdNotFoundException("Group " + groupId + " is a share group.");
  }

  @Override
  public void validateOffsetDelete() {
    throw new GroupIdNotFoundException("Group " + groupId + " is a share group.");
  }

  @Override
  public void validateDeleteGroup() {
    if (!members.isEmpty()) {
      throw new GroupNotEmptyException("Group " + groupId + " is not empty.");
    }
  }

  @Override
  public List<CoordinatorRecord> tombstones() {
    List<CoordinatorRecord> records = new ArrayList<>();
    members.keySet().forEach(id -> records.add(ShareGroupRecords.memberTombstone(groupId, id)));
    if (!statePartitions.isEmpty()) {
      records.add(ShareGroupRecords.statePartitionsTombstone(groupId));
    }
    records.add(ShareGroupRecords.groupTombstone(groupId));
    return records;
  }

  /**
   * The topic-partitions the group has (or may have) share state for, by topic id: what its admin
   * APIs describe and reset, and what deleting it deletes at the share coordinators.
   */
  public Map<Uuid, StateTopic> statePartitions() {
    return statePartitions;
  }

  /**
   * The state partitions with {@code added} (topic id to name and partitions) merged in, or null
   * when they hold nothing new.
   */
  Map<Uuid, StateTopic> withStatePartitions(Map<Uuid, StateTopic> added) {
    Map<Uuid, StateTopic> merged = new LinkedHashMap<>(statePartitions);
    boolean changed = false;
    for (Map.Entry<Uuid, StateTopic> e : added.entrySet()) {
      StateTopic before = merged.get(e.getKey());
      Set<Integer> partitions = new TreeSet<>();
      if (before != null) {
        partitions.addAll(before.partitions());
      }
      if (partitions.addAll(e.getValue().partitions()) || before == null) {
        changed = true;
        merged.put(e.getKey(), new StateTopic(e.getValue().name(), Set.copyOf(partitions)));
      }
    }
    return changed ? merged : null;
  }

  void applyStatePartitions(Map<Uuid, StateTopic> topics) {
    statePartitions = Collections.unmodifiableMap(new LinkedHashMap<>(topics));
  }

  public int groupEpoch() {
    return groupEpoch;
  }

  public Map<String, ShareGroupMember> members() {
    return Collections.unmodifiableMap(members);
  }

  public Optional<ShareGroupMember> member(String memberId) {
    return Optional.ofNullable(members.get(memberId));
  }

  public int size() {
    return members.size();
  }

  // ---- replay (and the in-memory member epoch, which is not persisted)

  void applyGroupEpoch(int epoch) {
    groupEpoch = epoch;
  }

  void applyMember(ShareGroupMember member) {
    boolean wasEmpty = members.isEmpty();
    ShareGroupMember previous = members.get(member.memberId());
    int epoch = previous == null ? groupEpoch : previous.memberEpoch();
    members.put(member.memberId(), member.withEpoch(epoch));
    if (wasEmpty) {
      stateTimestampMs = clock.getAsLong();
    }
  }

  void applyMemberRemoved(String memberId) {
    if (members.remove(memberId) != null && members.isEmpty()) {
      stateTimestampMs = clock.getAsLong();
    }
  }

  void setMemberEpoch(String memberId, int epoch) {
    ShareGroupMember member = members.get(memberId);
    if (member != null) {
      members.put(memberId, member.withEpoch(epoch));
    }
  }
}
