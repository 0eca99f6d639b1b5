package io.brook.metadata.image;

import java.util.ArrayList;
import java.util.List;

/**
 * One partition's replica placement and leadership.
 *
 * <p>While a reassignment is in progress (KIP-455), {@code replicas} is the union of the target and
 * the original replicas, target first; {@code addingReplicas} are the target replicas not in the
 * original set and {@code removingReplicas} the original replicas not in the target. Both are empty
 * otherwise.
 *
 * @param replicas the brokers holding a replica, distinct, preferred leader first
 * @param isr the in-sync replicas, a subset of {@code replicas}
 * @param leader the leader's broker id, a member of {@code isr}, or {@link #NO_LEADER}
 * @param leaderEpoch bumped every time the leader changes
 * @param partitionEpoch bumped on every change of the partition
 * @param addingReplicas replicas a reassignment adds, a subset of {@code replicas}
 * @param removingReplicas replicas a reassignment removes, a subset of {@code replicas}
 * @param eligibleLeaderReplicas replicas outside the ISR that hold every committed record and may
 *     lead without data loss when the ISR is empty (KIP-966)
 * @param lastKnownElr the leader the partition had when its ISR and ELR last became empty, or empty
 */
public record PartitionImage(
    List<Integer> replicas,
    List<Integer> isr,
    int leader,
    int leaderEpoch,
    int partitionEpoch,
    List<Integer> addingReplicas,
    List<Integer> removingReplicas,
    List<Integer> eligibleLeaderReplicas,
    List<Integer> lastKnownElr) {
  /** The leader id of a partition without a leader. */
  public static final int NO_LEADER = -1;

  public PartitionImage {
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
    addingReplicas = List.copyOf(addingReplicas);
    removingReplicas = List.copyOf(removingReplicas);
    eligibleLeaderReplicas = List.copyOf(eligibleLeaderReplicas);
    lastKnownElr = List.copyOf(lastKnownElr);
  }

  /** A partition with an empty ELR and last known ELR. */
  public PartitionImage(
      List<Integer> replicas,
      List<Integer> isr,
      int leader,
      int leaderEpoch,
      int partitionEpoch,
      List<Integer> addingReplicas,
      List<Integer> removingReplicas) {
    this(
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

  /** A partition without a reassignment in progress. */
  public PartitionImage(
      List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch, int partitionEpoch) {
    this(replicas, isr, leader, leaderEpoch, partitionEpoch, List.of(), List.of());
  }

  /** Whether the partition has a leader. */
  public boolean hasLeader() {
    return leader != NO_LEADER;
  }

  /** Whether a reassignment is in progress. */
  public boolean isReassigning() {
    return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
  }

  /** The replicas the partition had before its reassignment: {@code replicas - adding}. */
  public List<Integer> originalReplicas() {
    return without(replicas, addingReplicas);
  }

  /** The replicas the partition will have after its reassignment: {@code replicas - removing}. */
  public List<Integer> targetReplicas() {
    return without(replicas, removingReplicas);
  }

  private static List<Integer> without(List<Integer> from, List<Integer> removed) {
    if (removed.isEmpty()) {
      return from;
    }
    List<Integer> kept = new ArrayList<>(from);
    kept.removeAll(removed);
    return List.copyOf(kept);
  }
}
