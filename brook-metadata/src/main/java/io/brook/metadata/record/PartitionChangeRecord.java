package io.brook.metadata.record;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * A change to an existing partition; absent fields keep their value.
 *
 * <p>Applying it bumps the partition epoch by one, and the leader epoch by one when {@code leader}
 * is present and differs from the current leader, or when {@code replicas} drops a current replica
 * (as KRaft does when a reassignment completes: a removed replica that still fetches is then fenced
 * by its stale epoch).
 *
 * @param topicId the topic's id
 * @param partitionId the partition's index
 * @param isr the new in-sync replicas, if they change
 * @param leader the new leader (-1 for none), if it changes
 * @param replicas the new replica set, if it changes (reassignment)
 * @param addingReplicas the replicas an ongoing reassignment adds, if they change (empty when a
 *     reassignment completes or is cancelled)
 * @param removingReplicas the replicas an ongoing reassignment removes, if they change
 * @param eligibleLeaderReplicas the new eligible leader replicas (KIP-966), if they change
 * @param lastKnownElr the new last known leader (a list of at most one), if it changes
 */
public record PartitionChangeRecord(
    Uuid topicId,
    int partitionId,
    Optional<List<Integer>> isr,
    Optional<Integer> leader,
    Optional<List<Integer>> replicas,
    Optional<List<Integer>> addingReplicas,
    Optional<List<Integer>> removingReplicas,
    Optional<List<Integer>> eligibleLeaderReplicas,
    Optional<List<Integer>> lastKnownElr)
    implements MetadataRecord {
  public PartitionChangeRecord {
    Objects.requireNonNull(topicId, "topicId");
    isr = isr.map(List::copyOf);
    Objects.requireNonNull(leader, "leader");
    replicas = replicas.map(List::copyOf);
    addingReplicas = addingReplicas.map(List::copyOf);
    removingReplicas = removingReplicas.map(List::copyOf);
    eligibleLeaderReplicas = eligibleLeaderReplicas.map(List::copyOf);
    lastKnownElr = lastKnownElr.map(List::copyOf);
  }

  /** A change that leaves the ELR and the last known ELR as they are. */
  public PartitionChangeRecord(
      Uuid topicId,
      int partitionId,
      Optional<List<Integer>> isr,
      Optional<Integer> leader,
      Optional<List<Integer>> replicas,
      Optional<List<Integer>> addingReplicas,
      Optional<List<Integer>> removingReplicas) {
    this(
        topicId,
        partitionId,
        isr,
        leader,
        replicas,
        addingReplicas,
        removingReplicas,
        Optional.empty(),
        Optional.empty());
  }

  /** A change of ISR and leader only, the common case. */
  public PartitionChangeRecord(
      Uuid topicId, int partitionId, Optional<List<Integer>> isr, Optional<Integer> leader) {
    this(topicId, partitionId, isr, leader, Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** A change of ISR, leader and replicas, leaving a reassignment's adding and removing sets. */
  public PartitionChangeRecord(
      Uuid topicId,
      int partitionId,
      Optional<List<Integer>> isr,
      Optional<Integer> leader,
      Optional<List<Integer>> replicas) {
    this(topicId, partitionId, isr, leader, replicas, Optional.empty(), Optional.empty());
  }
}
