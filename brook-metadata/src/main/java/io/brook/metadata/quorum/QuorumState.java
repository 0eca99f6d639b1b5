package io.brook.metadata.quorum;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * The metadata quorum as its leader sees it, for {@code DescribeQuorum} ({@code
 * kafka-metadata-quorum describe}). Offsets are positions in the quorum's own log.
 *
 * @param leaderId the active controller's node id
 * @param leaderEpoch the leader's epoch (the Raft term)
 * @param highWatermark the offset after the last committed entry
 * @param voters every voter, the leader included
 * @param voterEndpoints each voter's controller listener
 * @param observers controllers that follow the log without voting (not yet added as voters)
 */
public record QuorumState(
    int leaderId,
    long leaderEpoch,
    long highWatermark,
    List<Replica> voters,
    Map<Integer, InetSocketAddress> voterEndpoints,
    List<Replica> observers) {
  public QuorumState {
    voters = List.copyOf(voters);
    voterEndpoints = Map.copyOf(voterEndpoints);
    observers = List.copyOf(observers);
  }

  /**
   * One replica's progress.
   *
   * @param replicaId its node id
   * @param directoryId its metadata directory's id (KIP-853), or {@link Uuid#ZERO_UUID} when not
   *     known (a voter named only by {@code controller.quorum.voters})
   * @param logEndOffset the offset after the last entry the leader knows it holds, or -1
   * @param lastFetchTimestamp wall-clock ms of its last exchange with the leader, or -1
   * @param lastCaughtUpTimestamp wall-clock ms when it last held everything committed, or -1
   */
  public record Replica(
      int replicaId,
      Uuid directoryId,
      long logEndOffset,
      long lastFetchTimestamp,
      long lastCaughtUpTimestamp) {
    /** A replica whose progress is not tracked. */
    public static Replica untracked(int replicaId) {
      return new Replica(replicaId, Uuid.ZERO_UUID, -1, -1, -1);
    }
  }
}
