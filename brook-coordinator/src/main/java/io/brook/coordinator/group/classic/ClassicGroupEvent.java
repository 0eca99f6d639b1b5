package io.brook.coordinator.group.classic;

import io.brook.coordinator.group.classic.ClassicGroupRecords.PersistedGroup;
import java.util.concurrent.CompletableFuture;

/**
 * Something that happened to a classic group. {@link ClassicGroup#apply} is the only way a group's
 * state changes: the request and timer code ({@link ClassicJoin}, {@link ClassicMembership}, {@link
 * ClassicRebalancer}, {@link ClassicGroupManager}) decides what happened and emits the event; the
 * group checks that the event fits its state and applies it.
 *
 * <p>Three kinds:
 *
 * <ul>
 *   <li><b>Membership and rebalance progress</b>, held in memory until the next group record, as
 *       Kafka holds them: members joining, rejoining and leaving, first joins waiting for their
 *       member id (KIP-394), the start of a rebalance, the sync barrier.
 *   <li><b>Group records</b> (type 2) replayed from {@code __consumer_offsets}: on a live write the
 *       runtime replays the record at once and the manager names it by what was written ({@link
 *       GenerationCompleted}, {@link GroupEmptied}, {@link AssignmentInstalled}, {@link
 *       StaticMemberReplaced}); while a shard loads, each record restores the group as written
 *       ({@link GroupLoaded}). Both apply the record the same way.
 *   <li><b>The end</b>: {@link GroupDeleted} (tombstone) and {@link GroupUnloaded}.
 * </ul>
 *
 * A member's parked JoinGroup and SyncGroup answers are handed over with the event that parks them;
 * completing one is answering the request and is done by whoever answers (a completed answer is no
 * longer parked, which is how a member stops counting as rejoined).
 */
sealed interface ClassicGroupEvent {

  // ---- membership, in memory until the next group record ----

  /**
   * A new member joined (a static member's first join, a dynamic one without KIP-394, or a pending
   * member coming back with its id); its JoinGroup answer waits for the join phase to end.
   */
  record MemberJoined(
      String memberId,
      String groupInstanceId,
      String protocolType,
      ClassicMember.Metadata metadata,
      String connectionId,
      CompletableFuture<JoinResult> answer)
      implements ClassicGroupEvent {}

  /**
   * A known member rejoined with (possibly new) metadata and waits for the join phase; a JoinGroup
   * of it already parked is answered REBALANCE_IN_PROGRESS.
   */
  record MemberRejoined(
      String memberId, ClassicMember.Metadata metadata, CompletableFuture<JoinResult> answer)
      implements ClassicGroupEvent {}

  /**
   * A known static member rejoined with a new member id while the group rebalances (or will): the
   * new id takes the old one's place, assignment and leadership; the caller has fenced the old id.
   */
  record StaticMemberRejoined(
      String oldMemberId,
      String newMemberId,
      ClassicMember.Metadata metadata,
      String connectionId,
      CompletableFuture<JoinResult> answer)
      implements ClassicGroupEvent {}

  /** A member's client details, timeouts and protocols changed without a rebalance. */
  record MemberUpdated(String memberId, ClassicMember.Metadata metadata)
      implements ClassicGroupEvent {}

  /** A member's JoinGroup, SyncGroup or Heartbeat arrived on this connection. */
  record MemberHeardFrom(String memberId, String connectionId) implements ClassicGroupEvent {}

  /** Why a member left the group. */
  enum RemovalCause {
    /** LeaveGroup. */
    LEFT,
    /** No heartbeat within its session timeout. */
    SESSION_EXPIRED,
    /** Brook: its connection closed and no request came on another one within the grace. */
    CONNECTION_CLOSED,
    /** It did not rejoin before the join phase ended (the rebalance timeout). */
    JOIN_TIMEOUT,
    /** It did not send SyncGroup within the rebalance timeout after the join phase. */
    SYNC_TIMEOUT,
    /** It rejoined a group that is at {@code group.max.size}. */
    GROUP_FULL
  }

  /**
   * A member is gone; its parked answers were completed and its timers cancelled by the caller. A
   * leader that leaves hands the leadership to the first remaining member.
   */
  record MemberRemoved(String memberId, RemovalCause cause) implements ClassicGroupEvent {}

  /** KIP-394: a first join was given this member id and must come back with it. */
  record PendingMemberAdded(String memberId) implements ClassicGroupEvent {}

  /** A member id given out by KIP-394 left or was not used in time. */
  record PendingMemberRemoved(String memberId) implements ClassicGroupEvent {}

  // ---- the rebalance ----

  /**
   * The group starts a rebalance: Empty, CompletingRebalance or Stable to PreparingRebalance. The
   * sync barrier of the ending generation is dropped; an assignment that never became Stable is
   * forgotten.
   */
  record RebalanceStarted(String reason, long nowMs) implements ClassicGroupEvent {}

  /** The initial delay of a new group saw new members and waits once more. */
  record InitialDelayExtended() implements ClassicGroupEvent {}

  /**
   * Every member got its JoinGroup answer of the new generation: each now owes a SyncGroup and is
   * no longer new.
   */
  record JoinPhaseAnswered() implements ClassicGroupEvent {}

  /**
   * A member sent SyncGroup for the current generation; {@code answer} (null when it is answered at
   * once) waits for the leader's assignment to be durable.
   */
  record SyncReceived(String memberId, CompletableFuture<SyncResult> answer)
      implements ClassicGroupEvent {}

  /** The leader's assignment is being written; SyncGroups wait until it is durable. */
  record AssignmentSubmitted() implements ClassicGroupEvent {}

  /** The write of the leader's assignment finished, committed or failed. */
  record AssignmentWriteFinished() implements ClassicGroupEvent {}

  // ---- group records (type 2) ----

  /** A record carrying a group's generation, protocol, leader and members. */
  sealed interface RecordEvent extends ClassicGroupEvent {
    PersistedGroup record();
  }

  /** Loading: a record read from the partition restores the group as it was written. */
  record GroupLoaded(PersistedGroup record) implements RecordEvent {}

  /** The join phase ended with members: a new generation, PreparingRebalance to Completing. */
  record GenerationCompleted(PersistedGroup record) implements RecordEvent {}

  /** The join phase ended with no member left: a new, empty generation. */
  record GroupEmptied(PersistedGroup record) implements RecordEvent {}

  /** The leader's assignment of the current generation: CompletingRebalance to Stable. */
  record AssignmentInstalled(PersistedGroup record) implements RecordEvent {}

  /** A restarted static member took over its old member id's place in a Stable group. */
  record StaticMemberReplaced(PersistedGroup record) implements RecordEvent {}

  // ---- the end ----

  /** The group's tombstone: it was deleted. */
  record GroupDeleted(long nowMs) implements ClassicGroupEvent {}

  /** The shard gave up the partition; the group lives on at the new coordinator. */
  record GroupUnloaded(long nowMs) implements ClassicGroupEvent {}
}
