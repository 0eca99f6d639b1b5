package io.brook.quorum;

import io.brook.metadata.quorum.QuorumState;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;

/**
 * Reads {@link QuorumState} from the Raft leader's own bookkeeping: its term, commit index, the
 * configuration (voters are Ratis peers, observers Ratis listeners) and, per follower, the match
 * index and the time since its last answer. Ratis log indexes are this quorum's offsets; an offset
 * one past an index is what Kafka calls a log end offset.
 */
final class QuorumStateReader {
  private QuorumStateReader() {}

  /**
   * The state, when {@code division} is the leader.
   *
   * @param selfEndpoint this node's controller endpoint as bound (the configuration may name port 0
   *     for a single {@code EmbeddedBrook})
   */
  static Optional<QuorumState> read(
      RaftServer.Division division, InetSocketAddress selfEndpoint, long nowMs) {
    DivisionInfo info = division.getInfo();
    RoleInfoProto role = info.getRoleInfoProto();
    if (!info.isLeader() || !role.hasLeaderInfo()) {
      return Optional.empty();
    }
    RaftLog log = division.getRaftLog();
    long highWatermark = log.getLastCommittedIndex() + 1;
    RaftPeerId self = division.getId();
    Map<RaftPeerId, QuorumState.Replica> progress = new HashMap<>();
    // As Kafka reports its leader: no fetch time, caught up now.
    progress.put(self, replica(self, log.getNextIndex(), -1, nowMs));

    // The follower list and the match indexes come from the same list of log appenders, in the
    // same order.
    List<ServerRpcProto> followers = role.getLeaderInfo().getFollowerInfoList();
    long[] matchIndexes = info.getFollowerMatchIndices();
    for (int i = 0; i < followers.size() && i < matchIndexes.length; i++) {
      ServerRpcProto follower = followers.get(i);
      RaftPeerId id = RaftPeerId.valueOf(follower.getId().getId());
      long logEndOffset = matchIndexes[i] + 1;
      long lastFetch = nowMs - follower.getLastRpcElapsedTimeMs();
      long caughtUp = logEndOffset >= highWatermark ? lastFetch : -1;
      progress.put(id, replica(id, logEndOffset, lastFetch, caughtUp));
    }
    RaftConfiguration conf = division.getRaftConf();
    List<QuorumState.Replica> voters = new ArrayList<>();
    Map<Integer, InetSocketAddress> endpoints = new LinkedHashMap<>();
    for (RaftPeer peer : sorted(conf.getCurrentPeers(RaftPeerRole.FOLLOWER))) {
      voters.add(progress.getOrDefault(peer.getId(), replica(peer.getId(), -1, -1, -1)));
      endpoints.put(
          RatisConfig.nodeId(peer.getId()),
          peer.getId().equals(self) ? selfEndpoint : RatisConfig.address(peer.getAddress()));
    }
    List<QuorumState.Replica> observers = new ArrayList<>();
    for (RaftPeer peer : sorted(conf.getCurrentPeers(RaftPeerRole.LISTENER))) {
      observers.add(progress.getOrDefault(peer.getId(), replica(peer.getId(), -1, -1, -1)));
    }
    return Optional.of(
        new QuorumState(
            RatisConfig.nodeId(self),
            info.getCurrentTerm(),
            highWatermark,
            voters,
            endpoints,
            observers));
  }

  private static List<RaftPeer> sorted(java.util.Collection<RaftPeer> peers) {
    return peers.stream()
        .sorted(Comparator.comparingInt((RaftPeer p) -> RatisConfig.nodeId(p.getId())))
        .toList();
  }

  private static QuorumState.Replica replica(
      RaftPeerId id, long logEndOffset, long lastFetch, long caughtUp) {
    return new QuorumState.Replica(
        RatisConfig.nodeId(id), RatisConfig.directoryId(id), logEndOffset, lastFetch, caughtUp);
  }
}
