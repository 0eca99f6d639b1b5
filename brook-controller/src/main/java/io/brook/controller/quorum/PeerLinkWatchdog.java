package io.brook.controller.quorum;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * Decides when this node's connections to a Raft peer must be reopened because nothing comes back
 * on them, as Kafka's network client closes a connection whose request timed out and sends the next
 * one on a new socket.
 *
 * <p>Ratis keeps one gRPC channel (two TCP connections: entries and heartbeats) per peer; when a
 * leader's requests to a follower time out it restarts the stream on the same connection, and
 * replaces the connection only on an error that says it broke, which a silent link never gives.
 * After a link drops every packet for a while (a firewall rule, a cable, a switch) and comes back,
 * a connection that had data in flight waits for TCP's next retransmission, whose back-off doubles
 * with every loss, and one opened during the cut for its next connection attempt, backed off the
 * same way: after a 30 s cut of the controller listener between two nodes, the Raft traffic between
 * them resumed only 5 to 7 s after the link did (measured). Meanwhile the leader hears nothing from
 * that follower; if the third voter then fails, the leader has no majority, steps down, and no
 * election can complete over the stalled connections either. A new connection works at once.
 *
 * <p>So: a leader reopens its connections to a follower that has not answered for longer than
 * {@code silenceMs} (Ratis's leader steps down when a majority stays silent that long, so a live
 * follower answers well within it); a node that has heard from no leader for longer than that
 * reopens its connections to every other voter, over which its votes go. Each peer's connections
 * are reopened at most once every {@code reopenEveryMs}, so a peer that is really gone costs one
 * failed connection attempt per period, and a vote in flight on a working connection (milliseconds
 * long) is almost never cut. A reopened connection that was not stalled costs one round trip.
 *
 * <p>Not thread-safe: one scheduled task calls it.
 */
final class PeerLinkWatchdog {
  private final long silenceMs;
  private final long reopenEveryMs;

  /** When each peer's connections were last reopened (the caller's clock). */
  private final Map<RaftPeerId, Long> reopenedAtMs = new HashMap<>();

  /**
   * When this node last heard from a leader, or led itself (the caller's clock); the first look
   * that knows of no leader starts it.
   */
  private long leaderHeardAtMs = Long.MIN_VALUE;

  /** Peers reopened during their current silence, with how many times, for the recovery log. */
  private final Map<RaftPeerId, Integer> reopenedWhileSilent = new HashMap<>();

  /**
   * A peer to reopen, how long this node has heard nothing over the link, and how many times its
   * connections were reopened during this silence, this time included.
   */
  record Silent(RaftPeerId peer, long silentMs, int reopens) {}

  /** A peer heard from again after its connections were reopened {@code reopens} times. */
  record Recovered(RaftPeerId peer, int reopens) {}

  /** What one look at the role found. */
  record Verdict(List<Silent> reopen, List<Recovered> recovered) {}

  PeerLinkWatchdog(long silenceMs, long reopenEveryMs) {
    if (silenceMs <= 0 || reopenEveryMs <= 0) {
      throw new IllegalArgumentException("silenceMs and reopenEveryMs must be positive");
    }
    this.silenceMs = silenceMs;
    this.reopenEveryMs = reopenEveryMs;
  }

  /**
   * The peers whose connections to reopen now.
   *
   * @param role this node's role as Ratis reports it
   * @param voters the voters of the current configuration
   * @param self this node's peer id
   * @param nowMs a monotonic clock in milliseconds
   */
  Verdict look(RoleInfoProto role, Collection<RaftPeerId> voters, RaftPeerId self, long nowMs) {
    Map<RaftPeerId, Long> silence = new HashMap<>();
    if (role.hasLeaderInfo()) {
      // A new leader's view of its followers starts from made-up answer times; Ratis itself
      // judges them only after as long as this.
      if (role.getRoleElapsedTimeMs() <= silenceMs) {
        return new Verdict(List.of(), List.of());
      }
      for (ServerRpcProto follower : role.getLeaderInfo().getFollowerInfoList()) {
        silence.put(
            RaftPeerId.valueOf(follower.getId().getId()), follower.getLastRpcElapsedTimeMs());
      }
      leaderHeardAtMs = nowMs;
    } else {
      long sinceLeaderMs = sinceLeaderMs(role, nowMs);
      for (RaftPeerId voter : voters) {
        if (!voter.equals(self)) {
          silence.put(voter, sinceLeaderMs);
        }
      }
    }
    List<Silent> reopen = new ArrayList<>();
    List<Recovered> recovered = new ArrayList<>();
    for (Map.Entry<RaftPeerId, Long> entry : silence.entrySet()) {
      RaftPeerId peer = entry.getKey();
      long silentMs = entry.getValue();
      if (silentMs <= silenceMs) {
        Integer reopens = reopenedWhileSilent.remove(peer);
        if (reopens != null) {
          recovered.add(new Recovered(peer, reopens));
        }
        continue;
      }
      Long lastReopen = reopenedAtMs.get(peer);
      if (lastReopen == null || nowMs - lastReopen >= reopenEveryMs) {
        reopenedAtMs.put(peer, nowMs);
        int reopens = reopenedWhileSilent.merge(peer, 1, Integer::sum);
        reopen.add(new Silent(peer, silentMs, reopens));
      }
    }
    // Peers no longer in view (removed voters, a role change) start afresh if they come back.
    reopenedWhileSilent.keySet().retainAll(silence.keySet());
    return new Verdict(reopen, recovered);
  }

  /**
   * How long a follower or candidate has heard nothing from a leader: from the latest contact any
   * look saw (a follower's time since its leader last wrote, a candidate's since its last leader),
   * or since this watchdog started. Kept here because Ratis's own figures restart with each role: a
   * candidate that turns follower on a refused vote knows no leader, yet its follower clock starts
   * at zero.
   */
  private long sinceLeaderMs(RoleInfoProto role, long nowMs) {
    long heardAgoMs = -1;
    if (role.hasFollowerInfo()
        && role.getFollowerInfo().hasLeaderInfo()
        && !role.getFollowerInfo().getLeaderInfo().getId().getId().isEmpty()) {
      heardAgoMs = role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs();
    } else if (role.hasCandidateInfo()) {
      heardAgoMs = role.getCandidateInfo().getLastLeaderElapsedTimeMs();
    }
    if (heardAgoMs >= 0) {
      leaderHeardAtMs = Math.max(leaderHeardAtMs, nowMs - heardAgoMs);
    } else if (leaderHeardAtMs == Long.MIN_VALUE) {
      leaderHeardAtMs = nowMs;
    }
    return nowMs - leaderHeardAtMs;
  }
}
