package io.brook.controller.quorum;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.quorum.ControllerChannel;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.metadata.quorum.QuorumState;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/** A node's view of a Raft metadata quorum: as a voter, or as a broker that follows the log. */
public interface ClusterQuorum extends MetadataQuorum, ControllerChannel {
  /** The node id of the active controller as this node knows it, if any. */
  OptionalInt activeControllerId();

  /** The quorum as its leader sees it, when this node is the leader; empty elsewhere. */
  Optional<QuorumState> quorumState();

  /** Controller operations waiting for this node's controller thread (0 where there is none). */
  default int queuedOperations() {
    return 0;
  }

  /**
   * On the leader: makes the observer {@code (id, directoryId)} a voter (AddRaftVoter), answering
   * once the new voter set is committed, or with Kafka's error.
   */
  default CompletableFuture<ApiError> addVoter(
      int id, Uuid directoryId, InetSocketAddress endpoint, Duration timeout) {
    return notLeader();
  }

  /** On the leader: removes the voter {@code (id, directoryId)} (RemoveRaftVoter). */
  default CompletableFuture<ApiError> removeVoter(int id, Uuid directoryId) {
    return notLeader();
  }

  /** On the leader: records a voter's new endpoint (UpdateRaftVoter). */
  default CompletableFuture<ApiError> updateVoter(
      int id, Uuid directoryId, InetSocketAddress endpoint) {
    return notLeader();
  }

  private static CompletableFuture<ApiError> notLeader() {
    return CompletableFuture.completedFuture(
        new ApiError(Errors.NOT_LEADER_OR_FOLLOWER, "this node is not a controller"));
  }
}
