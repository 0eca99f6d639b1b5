package io.brook.coordinator.group;

import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.List;

/**
 * What the offset store and the group listings need from a group, whichever protocol it uses.
 * Implemented by classic groups (JoinGroup/SyncGroup) and consumer groups (KIP-848). A group id
 * that has committed offsets but no group object is a "simple" group: Empty, classic, protocol type
 * "".
 */
public interface Group {
  String groupId();

  GroupType type();

  /** The state as Kafka names it in ListGroups/DescribeGroups ("Empty", "Stable", ...). */
  String stateName();

  /** "consumer" for consumer groups and most classic groups; "" for simple groups. */
  String protocolType();

  /** Whether the group has no members. */
  boolean isEmpty();

  /** When the group entered its current state, in ms; offsets of an empty group expire from it. */
  long stateTimestampMs();

  /** Whether members still consume {@code topic}; subscribed topics' offsets never expire. */
  boolean isSubscribedTo(String topic);

  /**
   * Checks that an offset commit comes from a current member.
   *
   * @param generationIdOrMemberEpoch the classic generation, or the KIP-848 member epoch
   * @param apiVersion the OffsetCommit version (error codes differ by version)
   * @throws org.apache.kafka.common.errors.ApiException UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
   *     FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS, STALE_MEMBER_EPOCH, ...
   */
  void validateOffsetCommit(
      String memberId, String groupInstanceId, int generationIdOrMemberEpoch, short apiVersion);

  /**
   * Checks that a transactional offset commit (TxnOffsetCommit) comes from a current member, as
   * Kafka does: the member fields exist from TxnOffsetCommit v3 on and are checked only when given,
   * and a rebalance in progress does not refuse the commit. The default applies the plain commit
   * rules; both group protocols override it.
   *
   * @param generationIdOrMemberEpoch the classic generation, the KIP-848 member epoch, or -1
   * @throws org.apache.kafka.common.errors.ApiException UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
   *     FENCED_INSTANCE_ID, STALE_MEMBER_EPOCH, COORDINATOR_NOT_AVAILABLE
   */
  default void validateTransactionalOffsetCommit(
      String memberId, String groupInstanceId, int generationIdOrMemberEpoch) {
    validateOffsetCommit(memberId, groupInstanceId, generationIdOrMemberEpoch, Short.MAX_VALUE);
  }

  /**
   * Checks an offset fetch that names a member (OffsetFetch v9+, consumer groups).
   *
   * @throws org.apache.kafka.common.errors.ApiException UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH
   */
  void validateOffsetFetch(String memberId, int memberEpoch);

  /**
   * Checks that offsets may be deleted.
   *
   * @throws org.apache.kafka.common.errors.ApiException when the group state forbids it
   */
  void validateOffsetDelete();

  /**
   * Checks that the group may be deleted.
   *
   * @throws org.apache.kafka.common.errors.GroupNotEmptyException if it has members
   */
  void validateDeleteGroup();

  /** The records that delete the group's own state (not its offsets). */
  List<CoordinatorRecord> tombstones();
}
