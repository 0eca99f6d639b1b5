package io.brook.metadata.image;

import java.util.List;

/**
 * One partition's replica placement and leadership.
 *
 * @param replicas the brokers holding a replica, distinct, preferred leader first
 * @param isr the in-sync replicas, a subset of {@code replicas}
 * @param leader the leader's broker id, a member of {@code isr}, or {@link #NO_LEADER}
 * @param leaderEpoch bumped every time the leader changes
 * @param partitionEpoch bumped on every change of the partition
 */
public record PartitionImage(
    List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch, int partitionEpoch) {
  /** The leader id of a partition without a leader. */
  public static final int NO_LEADER = -1;

  public PartitionImage {
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
  }

  /** Whether the partition has a leader. */
  public boolean hasLeader() {
    return leader != NO_LEADER;
  }
}
