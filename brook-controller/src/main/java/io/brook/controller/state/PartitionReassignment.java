package io.brook.controller.state;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One partition of an AlterPartitionReassignments request.
 *
 * @param topic the topic's name
 * @param partitionId the partition's index
 * @param targetReplicas the replicas the partition should end with, preferred leader first; empty
 *     to cancel the reassignment in progress
 */
public record PartitionReassignment(
    String topic, int partitionId, Optional<List<Integer>> targetReplicas) {
  public PartitionReassignment {
    Objects.requireNonNull(topic, "topic");
    targetReplicas = targetReplicas.map(List::copyOf);
  }

  /** Moves the partition to {@code replicas}. */
  public static PartitionReassignment to(String topic, int partitionId, List<Integer> replicas) {
    return new PartitionReassignment(topic, partitionId, Optional.of(replicas));
  }

  /** Cancels the partition's reassignment. */
  public static PartitionReassignment cancel(String topic, int partitionId) {
    return new PartitionReassignment(topic, partitionId, Optional.empty());
  }
}
