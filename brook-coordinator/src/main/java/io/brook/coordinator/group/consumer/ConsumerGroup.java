package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.Group;
import io.brook.coordinator.group.GroupType;
import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * A KIP-848 consumer group on one shard. Its state changes only through the {@code apply...}
 * methods, which {@link ConsumerGroupManager} calls when it replays the group's records, so a live
 * write and a load after failover build the same group.
 *
 * <p>Besides the persisted state (epochs, subscription metadata, members, target assignment) it
 * keeps two derived indexes: which member owns each partition (assigned or pending revocation), and
 * which member holds each static instance id.
 */
public final class ConsumerGroup implements Group {
  /** OffsetCommit must be at least this version for members of the consumer protocol. */
  private static final short MIN_COMMIT_VERSION = 9;

  private final String groupId;
  private final LongSupplier clock;
  private int groupEpoch;
  private int assignmentEpoch;
  private SortedMap<String, TopicMetadata> subscriptionMetadata = new TreeMap<>();
  private final SortedMap<String, ConsumerGroupMember> members = new TreeMap<>();
  private final SortedMap<String, SortedSet<TopicIdPartition>> targetAssignment = new TreeMap<>();
  private final Map<TopicIdPartition, String> owners = new HashMap<>();
  private final Map<String, String> staticMembers = new HashMap<>();
  private String stateName;
  private long stateTimestampMs;

  /**
   * @param clock when the group's state changes, for {@link #stateTimestampMs()}
   */
  public ConsumerGroup(String groupId, LongSupplier clock) {
    this.groupId = Objects.requireNonNull(groupId, "groupId");
    this.clock = clock;
    this.stateName = computeState();
    this.stateTimestampMs = clock.getAsLong();
  }

  // ---- reads

  @Override
  public String groupId() {
    return groupId;
  }

  @Override
  public GroupType type() {
    return GroupType.CONSUMER;
  }

  public int groupEpoch() {
    return groupEpoch;
  }

  public int assignmentEpoch() {
    return assignmentEpoch;
  }

  /** The subscribed topics that exist, by name. */
  public SortedMap<String, TopicMetadata> subscriptionMetadata() {
    return Collections.unmodifiableSortedMap(subscriptionMetadata);
  }

  public SortedMap<String, ConsumerGroupMember> members() {
    return Collections.unmodifiableSortedMap(members);
  }

  public Optional<ConsumerGroupMember> member(String memberId) {
    return Optional.ofNullable(members.get(memberId));
  }

  /** The member holding a static instance id. */
  public Optional<ConsumerGroupMember> staticMember(String instanceId) {
    String memberId = instanceId == null ? null : staticMembers.get(instanceId);
    return memberId == null ? Optional.empty() : member(memberId);
  }

  public SortedSet<TopicIdPartition> targetAssignment(String memberId) {
    return targetAssignment.getOrDefault(memberId, Collections.emptySortedSet());
  }

  /** The member that owns a partition (assigned or still revoking it), or null. */
  public String ownerOf(TopicIdPartition partition) {
    return owners.get(partition);
  }

  public int size() {
    return members.size();
  }

  @Override
  public String stateName() {
    return stateName;
  }

  @Override
  public String protocolType() {
    return "consumer";
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
    if (subscriptionMetadata.containsKey(topic)) {
      return true;
    }
    for (ConsumerGroupMember member : members.values()) {
      if (member.subscription().subscribedTopicNames().contains(topic)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Kafka's rules for commits to a consumer group: an epoch below zero from outside the group is
   * fine while the group is empty; otherwise the member must exist, use OffsetCommit v9+, and send
   * its current member epoch.
   */
  @Override
  public void validateOffsetCommit(
      String memberId, String groupInstanceId, int memberEpoch, short apiVersion) {
    if (memberEpoch < 0 && members.isEmpty()) {
      return;
    }
    ConsumerGroupMember member = requireMember(memberId);
    if (apiVersion < MIN_COMMIT_VERSION) {
      throw new UnsupportedVersionException(
          "OffsetCommit version 9 or above must be used by members of the consumer protocol");
    }
    requireEpoch(member, memberEpoch);
  }

  /**
   * Kafka's rules for TxnOffsetCommit to a consumer group: member fields are checked only when
   * given (they exist from version 3); a given member must exist and send its current epoch, any
   * OffsetCommit version aside.
   */
  @Override
  public void validateTransactionalOffsetCommit(
      String memberId, String groupInstanceId, int memberEpoch) {
    if (memberEpoch < 0 && members.isEmpty()) {
      return;
    }
    boolean noMember = memberId == null || memberId.isEmpty();
    if (memberEpoch < 0 && noMember && groupInstanceId == null) {
      return;
    }
    requireEpoch(requireMember(memberId), memberEpoch);
  }

  @Override
  public void validateOffsetFetch(String memberId, int memberEpoch) {
    if (memberId == null && memberEpoch < 0) {
      return;
    }
    requireEpoch(requireMember(memberId), memberEpoch);
  }

  private ConsumerGroupMember requireMember(String memberId) {
    ConsumerGroupMember member = memberId == null ? null : members.get(memberId);
    if (member == null) {
      throw new UnknownMemberIdException(
          "member " + memberId + " is not a member of group " + groupId);
    }
    return member;
  }

  private static void requireEpoch(ConsumerGroupMember member, int memberEpoch) {
    if (member.memberEpoch() != memberEpoch) {
      throw new StaleMemberEpochException(
          "member epoch "
              + memberEpoch
              + " of member "
              + member.memberId()
              + " is not its current epoch "
              + member.memberEpoch());
    }
  }

  @Override
  public void validateOffsetDelete() {
    // Offsets of topics the group no longer subscribes to may go whatever the state.
  }

  @Override
  public void validateDeleteGroup() {
    if (!members.isEmpty()) {
      throw new GroupNotEmptyException("group " + groupId + " still has members");
    }
  }

  @Override
  public List<CoordinatorRecord> tombstones() {
    List<CoordinatorRecord> records = new ArrayList<>();
    for (String memberId : members.keySet()) {
      records.addAll(ConsumerGroupRecords.memberTombstones(groupId, memberId));
    }
    records.addAll(ConsumerGroupRecords.groupTombstones(groupId));
    return records;
  }

  /** Everything replay builds, for comparing a loaded group with a live one. */
  public record Snapshot(
      int groupEpoch,
      int assignmentEpoch,
      Map<String, TopicMetadata> subscriptionMetadata,
      Map<String, ConsumerGroupMember> members,
      Map<String, SortedSet<TopicIdPartition>> targetAssignment,
      Map<TopicIdPartition, String> owners,
      String state) {}

  public Snapshot snapshot() {
    return new Snapshot(
        groupEpoch,
        assignmentEpoch,
        Map.copyOf(subscriptionMetadata),
        Map.copyOf(members),
        Map.copyOf(targetAssignment),
        Map.copyOf(owners),
        stateName);
  }

  // ---- replay

  void applyGroupEpoch(int epoch) {
    groupEpoch = epoch;
    updateState();
  }

  void applySubscriptionMetadata(Collection<TopicMetadata> topics) {
    SortedMap<String, TopicMetadata> byName = new TreeMap<>();
    topics.forEach(t -> byName.put(t.name(), t));
    subscriptionMetadata = byName;
  }

  void applyMemberSubscription(String memberId, MemberSubscription subscription) {
    ConsumerGroupMember old = members.get(memberId);
    ConsumerGroupMember member =
        old == null
            ? new ConsumerGroupMember(memberId, subscription, MemberAssignment.NEW)
            : old.withSubscription(subscription);
    if (old != null && old.instanceId() != null) {
      staticMembers.remove(old.instanceId(), memberId);
    }
    if (subscription.instanceId() != null) {
      staticMembers.put(subscription.instanceId(), memberId);
    }
    members.put(memberId, member);
    updateState();
  }

  void applyMemberRemoved(String memberId) {
    ConsumerGroupMember old = members.remove(memberId);
    if (old != null) {
      releaseOwnership(old);
      if (old.instanceId() != null) {
        staticMembers.remove(old.instanceId(), memberId);
      }
    }
    updateState();
  }

  void applyAssignmentEpoch(int epoch) {
    assignmentEpoch = epoch;
    updateState();
  }

  void applyTargetAssignment(String memberId, SortedSet<TopicIdPartition> partitions) {
    if (partitions == null) {
      targetAssignment.remove(memberId);
    } else {
      targetAssignment.put(memberId, Collections.unmodifiableSortedSet(new TreeSet<>(partitions)));
    }
  }

  void applyCurrentAssignment(String memberId, MemberAssignment assignment) {
    ConsumerGroupMember old = members.get(memberId);
    if (old != null) {
      releaseOwnership(old);
    }
    ConsumerGroupMember member =
        old == null
            ? new ConsumerGroupMember(memberId, MemberSubscription.EMPTY, assignment)
            : old.withAssignment(assignment);
    members.put(memberId, member);
    assignment.assigned().forEach(tp -> owners.put(tp, memberId));
    assignment.pendingRevocation().forEach(tp -> owners.put(tp, memberId));
    updateState();
  }

  private void releaseOwnership(ConsumerGroupMember member) {
    member.assignment().assigned().forEach(tp -> owners.remove(tp, member.memberId()));
    member.assignment().pendingRevocation().forEach(tp -> owners.remove(tp, member.memberId()));
  }

  private void updateState() {
    String next = computeState();
    if (!next.equals(stateName)) {
      stateName = next;
      stateTimestampMs = clock.getAsLong();
    }
  }

  /** Kafka's consumer group states, from the epochs of the group and its members. */
  private String computeState() {
    if (members.isEmpty()) {
      return "Empty";
    }
    if (groupEpoch > assignmentEpoch) {
      return "Assigning";
    }
    for (ConsumerGroupMember member : members.values()) {
      if (member.assignment().state() != MemberState.STABLE
          || member.memberEpoch() != assignmentEpoch) {
        return "Reconciling";
      }
    }
    return "Stable";
  }
}
