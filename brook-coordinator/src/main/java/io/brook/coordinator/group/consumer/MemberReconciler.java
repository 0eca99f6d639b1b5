package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.assignor.TopicIdPartition;
import java.util.Collection;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Moves one member's current assignment toward its target, without any group-wide barrier: the
 * member first gives up what it must lose (its epoch stays until it reports they are revoked), then
 * takes at the target epoch every new partition that no other member still owns; partitions still
 * owned elsewhere come with a later heartbeat, once their owner released them. So no partition ever
 * has two owners.
 */
final class MemberReconciler {
  private MemberReconciler() {}

  /**
   * The member's next assignment.
   *
   * @param current the member's assignment now
   * @param targetEpoch the target assignment's epoch
   * @param target the member's target partitions
   * @param owned the partitions the member reports owning, or null if it did not say
   * @param ownerOf the member currently owning a partition, or null when it is free
   * @param memberId the member being reconciled
   * @return the next assignment (equal to {@code current} if nothing changes)
   */
  static MemberAssignment reconcile(
      MemberAssignment current,
      int targetEpoch,
      SortedSet<TopicIdPartition> target,
      Collection<TopicIdPartition> owned,
      Function<TopicIdPartition, String> ownerOf,
      String memberId) {
    return switch (current.state()) {
      case STABLE ->
          current.memberEpoch() == targetEpoch
              ? current
              : next(current, targetEpoch, target, ownerOf, memberId);
      case UNREVOKED_PARTITIONS ->
          owned != null && current.pendingRevocation().stream().noneMatch(owned::contains)
              ? next(current, targetEpoch, target, ownerOf, memberId)
              : current;
      case UNRELEASED_PARTITIONS -> next(current, targetEpoch, target, ownerOf, memberId);
    };
  }

  private static MemberAssignment next(
      MemberAssignment current,
      int targetEpoch,
      SortedSet<TopicIdPartition> target,
      Function<TopicIdPartition, String> ownerOf,
      String memberId) {
    SortedSet<TopicIdPartition> kept = new TreeSet<>(current.assigned());
    kept.retainAll(target);
    SortedSet<TopicIdPartition> revoke = new TreeSet<>(current.assigned());
    revoke.removeAll(target);
    if (!revoke.isEmpty()) {
      return new MemberAssignment(
          current.memberEpoch(),
          current.previousMemberEpoch(),
          MemberState.UNREVOKED_PARTITIONS,
          kept,
          revoke);
    }
    boolean unreleased = false;
    SortedSet<TopicIdPartition> assigned = new TreeSet<>(kept);
    for (TopicIdPartition tp : target) {
      if (assigned.contains(tp)) {
        continue;
      }
      String owner = ownerOf.apply(tp);
      if (owner == null || owner.equals(memberId)) {
        assigned.add(tp);
      } else {
        unreleased = true;
      }
    }
    int previousEpoch =
        current.memberEpoch() == targetEpoch
            ? current.previousMemberEpoch()
            : current.memberEpoch();
    MemberAssignment next =
        new MemberAssignment(
            targetEpoch,
            previousEpoch,
            unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE,
            assigned,
            new TreeSet<>());
    return next.equals(current) ? current : next;
  }
}
