package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.assignor.TopicIdPartition;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A member's current assignment: the value of a current member assignment record.
 *
 * @param memberEpoch the member's epoch; -2 for a static member that left and may come back
 * @param previousMemberEpoch the epoch before the last bump (a member that missed the response of
 *     its bump may still use it); for a static member that left (-2), the epoch it had
 * @param state where the member is in reconciling with its target
 * @param assigned the partitions it owns and may consume
 * @param pendingRevocation the partitions it still owns but must give up
 */
public record MemberAssignment(
    int memberEpoch,
    int previousMemberEpoch,
    MemberState state,
    SortedSet<TopicIdPartition> assigned,
    SortedSet<TopicIdPartition> pendingRevocation) {
  /** A member that just joined. */
  public static final MemberAssignment NEW =
      new MemberAssignment(0, 0, MemberState.STABLE, new TreeSet<>(), new TreeSet<>());

  /** A member whose assignment record was deleted. */
  public static final MemberAssignment LEFT =
      new MemberAssignment(-1, -1, MemberState.STABLE, new TreeSet<>(), new TreeSet<>());

  public MemberAssignment {
    Objects.requireNonNull(state, "state");
    assigned = Collections.unmodifiableSortedSet(new TreeSet<>(assigned));
    pendingRevocation = Collections.unmodifiableSortedSet(new TreeSet<>(pendingRevocation));
  }
}
