package io.brook.metadata.record;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A new partition of an existing topic, or (in a snapshot) a partition as it stands.
 *
 * @param topicId the topic's id
 * @param partitionId the partition's index, 0-based
 * @param replicas the brokers holding a replica, distinct, preferred leader first
 * @param isr the in-sync replicas, a subset of {@code replicas}
 * @param leader the leader's broker id, a member of {@code isr}, or -1 for none
 * @param leaderEpoch the leader epoch
 * @param partitionEpoch the partition epoch (bumped on every change)
 * @param addingReplicas the replicas an ongoing reassignment adds; empty when none is in progress
 * @param removingReplicas the replicas an ongoing reassignment removes; empty when none is in
 *     progress
 * @param eligibleLeaderReplicas replicas outside the ISR known to hold every committed record
 *     (KIP-966): they may lead without data loss when the ISR is empty
 * @param lastKnownElr the leader the partition had when it last became leaderless with an empty ISR
 *     and ELR (at most one member); empty otherwise
 */
public record PartitionRecord(
    Uuid topicId,
    int partitionId,
    List<Integer> replicas,
    List<Integer> isr,
    int leader,
    int leaderEpoch,
    int partitionEpoch,
    List<Integer> addingReplicas,
    List<Integer> removingReplicas,
    List<Integer> eligibleLeaderReplicas,
    List<Integer> lastKnownElr)
    implements MetadataRecord {
  public PartitionRecord {
    Objects.requireNonNull(topicId, "topicId");
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
    addingReplicas = List.copyOf(addingReplicas);
    removingReplicas = List.copyOf(removingReplicas);
    eligibleLeaderReplicas = List.copyOf(eligibleLeaderReplicas);
    lastKnownElr = List.copyOf(lastKnownElr);
  }

  /** A partition with an empty ELR and last known ELR. */
  public PartitionRecord(
      Uuid topicId,
      int partitionId,
      List<Integer> replicas,
      List<Integer> isr,
      int leader,
      int leaderEpoch,
      int partitionEpoch,
      List<Integer> addingReplicas,
      List<Integer> removingReplicas) {
    this(
        topicId,
        partitionId,
        replicas,
        isr,
        leader,
        leaderEpoch,
        partitionEpoch,
        addingReplicas,
        removingReplicas,
        List.of(),
        List.of());
  }

  /** A partition without a reassignment in progress, as every new partition is. */
  public PartitionRecord(
      Uuid topicId,
      int partitionId,
      List<Integer> replicas,
      List<Integer> isr,
      int leader,
      int leaderEpoch,
      int partitionEpoch) {
    this(
        topicId,
        partitionId,
        replicas,
        isr,
        leader,
        leaderEpoch,
        partitionEpoch,
        List.of(),
        List.of());
  }
}
