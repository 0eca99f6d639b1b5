package io.brook.quorum;

import io.brook.metadata.quorum.ControllerChannel;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.metadata.quorum.QuorumState;
import java.util.Optional;
import java.util.OptionalInt;

/** A node's view of a Raft metadata quorum: as a voter, or as a broker that follows the log. */
public interface ClusterQuorum extends MetadataQuorum, ControllerChannel {
  /** The node id of the active controller as this node knows it, if any. */
  OptionalInt activeControllerId();

  /** The quorum as its leader sees it, when this node is the leader; empty elsewhere. */
  Optional<QuorumState> quorumState();
}
