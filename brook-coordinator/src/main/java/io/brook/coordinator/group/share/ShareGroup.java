package io.brook.coordinator.group.share;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupType;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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

  /** One share-partition of the group: a topic (by id) and partition. */
  public record PartitionId(Uuid topicId, int partition) {}

  private final String groupId;
  private final LongSupplier clock;
  private final Map<String, ShareGroupMember> members = new LinkedHashMap<>();

  /** Share-partitions whose state the share coordinators initialized (type 15's initialized). */
  private Map<Uuid, StateTopic> statePartitions = Map.of();

  /** Share-partitions being initialized (type 15's initializing), and since when (in memory). */
  private Map<Uuid, StateTopic> initializing = Map.of();

  private final Map<PartitionId, Long> initializingSinceMs = new HashMap<>();

  /** The start offset each initializing share-partition was first given (in memory). */
  private final Map<PartitionId, Long> initializingStartOffsets = new HashMap<>();

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
    if (!statePartitions.isEmpty() || !initializing.isEmpty()) {
      records.add(ShareGroupRecords.statePartitionsTombstone(groupId));
    }
    records.add(ShareGroupRecords.groupTombstone(groupId));
    return records;
  }

  /**
   * The topic-partitions the group has (or may have) share state for, by topic id: the initialized
   * ones and those being initialized. What its admin APIs describe and reset, and what deleting it
   * deletes at the share coordinators.
   */
  public Map<Uuid, StateTopic> statePartitions() {
    return initializing.isEmpty() ? statePartitions : merge(statePartitions, initializing);
  }

  /** The share-partitions whose state is initialized: the only ones members are assigned. */
  public Map<Uuid, StateTopic> initialized() {
    return statePartitions;
  }

  /** The share-partitions whose state is being initialized. */
  public Map<Uuid, StateTopic> initializing() {
    return initializing;
  }

  /**
   * When this coordinator started initializing {@code id}, or Long.MIN_VALUE (loaded from the log:
   * its initialization may have been lost with the previous coordinator).
   */
  long initializingSinceMs(PartitionId id) {
    return initializingSinceMs.getOrDefault(id, Long.MIN_VALUE);
  }

  /** {@code starts} (share-partition to start offset) began initializing at {@code nowMs}. */
  void markInitializing(Map<PartitionId, Long> starts, long nowMs) {
    starts.forEach(
        (id, start) -> {
          initializingSinceMs.put(id, nowMs);
          initializingStartOffsets.putIfAbsent(id, start);
        });
  }

  /** The start offset {@code id} was first given when it began initializing, if known. */
  Optional<Long> initializingStartOffset(PartitionId id) {
    return Optional.ofNullable(initializingStartOffsets.get(id));
  }

  /** {@code ids} failed to initialize: the next heartbeat tries them again. */
  void retryInitializing(Set<PartitionId> ids) {
    initializingSinceMs.keySet().removeAll(ids);
  }

  /** Whether {@code id} is initialized. */
  boolean isInitialized(PartitionId id) {
    StateTopic topic = statePartitions.get(id.topicId());
    return topic != null && topic.partitions().contains(id.partition());
  }

  /** Whether {@code id} is being initialized. */
  boolean isInitializing(PartitionId id) {
    StateTopic topic = initializing.get(id.topicId());
    return topic != null && topic.partitions().contains(id.partition());
  }

  /**
   * The state partitions with {@code added} (topic id to name and partitions) merged in, or null
   * when they hold nothing new.
   */
  Map<Uuid, StateTopic> withStatePartitions(Map<Uuid, StateTopic> added) {
    Map<Uuid, StateTopic> merged = merge(statePartitions, added);
    return merged.equals(statePartitions) ? null : merged;
  }

  /** {@code a} and {@code b} together, topic by topic. */
  static Map<Uuid, StateTopic> merge(Map<Uuid, StateTopic> a, Map<Uuid, StateTopic> b) {
    Map<Uuid, StateTopic> merged = new LinkedHashMap<>(a);
    for (Map.Entry<Uuid, StateTopic> e : b.entrySet()) {
      StateTopic before = merged.get(e.getKey());
      Set<Integer> partitions = new TreeSet<>(e.getValue().partitions());
      if (before != null) {
        partitions.addAll(before.partitions());
      }
      merged.put(e.getKey(), new StateTopic(e.getValue().name(), Set.copyOf(partitions)));
    }
    return merged;
  }

  /** {@code a} without the partitions of {@code b}; a topic left with none goes. */
  static Map<Uuid, StateTopic> minus(Map<Uuid, StateTopic> a, Map<Uuid, StateTopic> b) {
    Map<Uuid, StateTopic> out = new LinkedHashMap<>();
    for (Map.Entry<Uuid, StateTopic> e : a.entrySet()) {
      Set<Integer> partitions = new TreeSet<>(e.getValue().partitions());
      StateTopic removed = b.get(e.getKey());
      if (removed != null) {
        partitions.removeAll(removed.partitions());
      }
      if (!partitions.isEmpty()) {
        out.put(e.getKey(), new StateTopic(e.getValue().name(), Set.copyOf(partitions)));
      }
    }
    return out;
  }

  void applyStatePartitions(Map<Uuid, StateTopic> initialized, Map<Uuid, StateTopic> initializing) {
    statePartitions = Collections.unmodifiableMap(new LinkedHashMap<>(initialized));
    this.initializing = Collections.unmodifiableMap(new LinkedHashMap<>(initializing));
    initializingSinceMs.keySet().removeIf(id -> !isInitializing(id));
    initializingStartOffsets.keySet().removeIf(id -> !isInitializing(id));
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
