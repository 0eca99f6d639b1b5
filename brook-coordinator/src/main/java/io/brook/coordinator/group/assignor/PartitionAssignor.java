package io.brook.coordinator.group.assignor;

/**
 * A server-side assignor of the KIP-848 consumer protocol: turns the members' subscriptions and
 * current assignments into the group's target assignment. Implementations are pure and
 * deterministic (the same spec always gives the same answer), hold no state and run on a shard
 * thread, so they must be fast: linear or near-linear in partitions and members.
 */
public interface PartitionAssignor {
  /** The name clients choose it by ({@code group.remote.assignor}, ServerAssignor). */
  String name();

  /**
   * Computes a target assignment.
   *
   * @return every member of {@code spec}, each with the partitions it should own (possibly none);
   *     each partition of a subscribed topic goes to exactly one of its subscribers
   */
  GroupAssignment assign(AssignmentSpec spec);
}
