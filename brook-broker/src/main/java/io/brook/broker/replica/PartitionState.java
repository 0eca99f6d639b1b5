package io.brook.broker.replica;

import java.util.List;

/**
 * What the metadata says about one partition, as this broker last applied it.
 *
 * @param leader broker id of the leader, or -1 when there is none
 * @param leaderEpoch bumped on every leader change; stamped on every batch the leader appends
 * @param partitionEpoch bumped on every change of the partition (ISR, replicas, leader)
 * @param replicas all replicas, preferred leader first
 * @param isr the in-sync replicas
 */
public record PartitionState(
    int leader, int leaderEpoch, int partitionEpoch, List<Integer> replicas, List<Integer> isr) {
  public PartitionState {
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
  }
}
