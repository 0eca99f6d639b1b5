package io.brook.quorum;

import io.brook.metadata.quorum.QuorumState;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;

/**
 * Reads {@link QuorumState} from the Raft leader's own bookkeeping: its term, commit index and, per
 * follower, the match index and the time since its last answer. Ratis log indexes are this quorum's
 * offsets; an offset one past an index is what Kafka calls a log end offset.
 */
final class QuorumStateReader {
  private QuorumStateReader() {}

  /** The state, when {@code division} is the leader. */
  static Optional<QuorumState> read(
      RaftServer.Division division, Map<Integer, InetSocketAddress> voters, long nowMs) {
    DivisionInfo info = division.getInfo();
    RoleInfoProto role = info.getRoleInfoProto();
    if (!info.isLeader() || !role.hasLeaderInfo()) {
      return Optional.empty();
    }
    RaftLog log = division.getRaftLog();
    long highWatermark = log.getLastCommittedIndex() + 1;
    int self = RatisConfig.nodeId(division.getId());
    Map<Integer, QuorumState.Replica> replicas = new HashMap<>();
    // As Kafka reports its leader: no fetch time, caught up now.
    replicas.put(self, new QuorumState.Replica(self, log.getNextIndex(), -1, nowMs));

    // The follower list and the match indexes come from the same list of log appenders, in the
    // same order.
    List<ServerRpcProto> followers = role.getLeaderInfo().getFollowerInfoList();
    long[] matchIndexes = info.getFollowerMatchIndices();
    for (int i = 0; i < followers.size() && i < matchIndexes.length; i++) {
      ServerRpcProto follower = followers.get(i);
      int id = RatisConfig.nodeId(RaftPeerId.valueOf(follower.getId().getId()));
      long logEndOffset = matchIndexes[i] + 1;
      long lastFetch = nowMs - follower.getLastRpcElapsedTimeMs();
      long caughtUp = logEndOffset >= highWatermark ? lastFetch : -1;
      replicas.put(id, new QuorumState.Replica(id, logEndOffset, lastFetch, caughtUp));
    }
    List<QuorumState.Replica> ordered = new ArrayList<>();
    voters.keySet().stream()
        .sorted()
        .forEach(
            id -> ordered.add(replicas.getOrDefault(id, new QuorumState.Replica(id, -1, -1, -1))));
    return Optional.of(
        new QuorumState(self, info.getCurrentTerm(), highWatermark, ordered, voters));
  }
}
