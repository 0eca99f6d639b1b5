package io.brook.controller.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.controller.quorum.PeerLinkWatchdog.Recovered;
import io.brook.controller.quorum.PeerLinkWatchdog.Silent;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.CandidateInfoProto;
import org.apache.ratis.proto.RaftProtos.FollowerInfoProto;
import org.apache.ratis.proto.RaftProtos.LeaderInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;

class PeerLinkWatchdogTest {
  private static final RaftPeerId ONE = RaftPeerId.valueOf("node-1");
  private static final RaftPeerId TWO = RaftPeerId.valueOf("node-2");
  private static final RaftPeerId THREE = RaftPeerId.valueOf("node-3");
  private static final List<RaftPeerId> VOTERS = List.of(ONE, TWO, THREE);

  private final PeerLinkWatchdog watchdog = new PeerLinkWatchdog(500, 1_000);

  @Test
  void aLeaderReopensOnlyTheFollowerThatStoppedAnswering() {
    PeerLinkWatchdog.Verdict verdict = watchdog.look(leader(40, 2_007), VOTERS, ONE, 10_000);

    assertThat(verdict.reopen()).containsExactly(new Silent(THREE, 2_007, 1));
    assertThat(verdict.recovered()).isEmpty();
  }

  @Test
  void aFollowerAnsweringWithinTheSilenceIsLeftAlone() {
    assertThat(watchdog.look(leader(500, 120), VOTERS, ONE, 10_000).reopen()).isEmpty();
  }

  @Test
  void aSilentPeerIsReopenedOncePerPeriodAndReportedOnceItAnswersAgain() {
    assertThat(watchdog.look(leader(10, 600), VOTERS, ONE, 10_000).reopen())
        .containsExactly(new Silent(THREE, 600, 1));
    // Within the period: not again, however long the silence
    assertThat(watchdog.look(leader(10, 1_100), VOTERS, ONE, 10_500).reopen()).isEmpty();
    assertThat(watchdog.look(leader(10, 1_599), VOTERS, ONE, 10_999).reopen()).isEmpty();
    // A period later: again, counted
    assertThat(watchdog.look(leader(10, 1_600), VOTERS, ONE, 11_000).reopen())
        .containsExactly(new Silent(THREE, 1_600, 2));

    PeerLinkWatchdog.Verdict answered = watchdog.look(leader(10, 30), VOTERS, ONE, 11_100);
    assertThat(answered.reopen()).isEmpty();
    assertThat(answered.recovered()).containsExactly(new Recovered(THREE, 2));
    // Reported once only
    assertThat(watchdog.look(leader(10, 30), VOTERS, ONE, 11_200).recovered()).isEmpty();
  }

  @Test
  void aFollowerThatHearsNoLeaderReopensEveryOtherVoter() {
    RoleInfoProto follower =
        RoleInfoProto.newBuilder()
            .setRole(RaftPeerRole.FOLLOWER)
            .setRoleElapsedTimeMs(60_000)
            .setFollowerInfo(FollowerInfoProto.newBuilder().setLeaderInfo(rpc(ONE, 900)))
            .build();

    assertThat(watchdog.look(follower, VOTERS, TWO, 5_000).reopen())
        .extracting(Silent::peer)
        .containsExactlyInAnyOrder(ONE, THREE);
  }

  @Test
  void aFollowerThatHearsItsLeaderReopensNothing() {
    RoleInfoProto follower =
        RoleInfoProto.newBuilder()
            .setRole(RaftPeerRole.FOLLOWER)
            .setRoleElapsedTimeMs(60_000)
            .setFollowerInfo(FollowerInfoProto.newBuilder().setLeaderInfo(rpc(ONE, 90)))
            .build();

    assertThat(watchdog.look(follower, VOTERS, TWO, 5_000).reopen()).isEmpty();
  }

  @Test
  void aCandidateCountsFromTheLastLeaderItHeard() {
    assertThat(watchdog.look(candidate(200), VOTERS, THREE, 5_000).reopen()).isEmpty();
    assertThat(
            new PeerLinkWatchdog(500, 1_000).look(candidate(2_000), VOTERS, THREE, 5_000).reopen())
        .extracting(Silent::peer)
        .containsExactlyInAnyOrder(ONE, TWO);
  }

  @Test
  void aCandidateTurnedFollowerWithoutALeaderStaysSilentUntilALeaderWrites() {
    assertThat(watchdog.look(candidate(2_000), VOTERS, THREE, 5_000).reopen()).hasSize(2);

    // Its vote refused, it is a follower again, of no leader yet: Ratis's follower clock restarts
    RoleInfoProto noLeader =
        RoleInfoProto.newBuilder()
            .setRole(RaftPeerRole.FOLLOWER)
            .setRoleElapsedTimeMs(10)
            .setFollowerInfo(
                FollowerInfoProto.newBuilder()
                    .setLeaderInfo(ServerRpcProto.newBuilder().setLastRpcElapsedTimeMs(10)))
            .build();
    PeerLinkWatchdog.Verdict stillSilent = watchdog.look(noLeader, VOTERS, THREE, 6_000);
    assertThat(stillSilent.recovered()).isEmpty();
    assertThat(stillSilent.reopen())
        .containsExactlyInAnyOrder(new Silent(ONE, 3_000, 2), new Silent(TWO, 3_000, 2));

    // A leader writes: every voter is heard of again
    RoleInfoProto following =
        RoleInfoProto.newBuilder()
            .setRole(RaftPeerRole.FOLLOWER)
            .setRoleElapsedTimeMs(100)
            .setFollowerInfo(FollowerInfoProto.newBuilder().setLeaderInfo(rpc(ONE, 20)))
            .build();
    assertThat(watchdog.look(following, VOTERS, THREE, 6_100).recovered())
        .containsExactlyInAnyOrder(new Recovered(ONE, 2), new Recovered(TWO, 2));
  }

  @Test
  void aNewLeaderDoesNotJudgeItsFollowersBeforeItHasLedForTheSilence() {
    RoleInfoProto newLeader =
        RoleInfoProto.newBuilder()
            .setRole(RaftPeerRole.LEADER)
            .setRoleElapsedTimeMs(300)
            .setLeaderInfo(
                LeaderInfoProto.newBuilder()
                    .addFollowerInfo(rpc(TWO, 40_000))
                    .addFollowerInfo(rpc(THREE, 40_000)))
            .build();

    assertThat(watchdog.look(newLeader, VOTERS, ONE, 5_000).reopen()).isEmpty();
  }

  @Test
  void aSingleVoterHasNoPeerToReopen() {
    assertThat(watchdog.look(candidate(5_000), List.of(ONE), ONE, 5_000).reopen()).isEmpty();
  }

  /** Node 1 leads; nodes 2 and 3 last answered that long ago. */
  private static RoleInfoProto leader(long twoSilentMs, long threeSilentMs) {
    return RoleInfoProto.newBuilder()
        .setRole(RaftPeerRole.LEADER)
        .setRoleElapsedTimeMs(60_000)
        .setLeaderInfo(
            LeaderInfoProto.newBuilder()
                .addFollowerInfo(rpc(TWO, twoSilentMs))
                .addFollowerInfo(rpc(THREE, threeSilentMs)))
        .build();
  }

  private static RoleInfoProto candidate(long sinceLeaderMs) {
    return RoleInfoProto.newBuilder()
        .setRole(RaftPeerRole.CANDIDATE)
        .setRoleElapsedTimeMs(100)
        .setCandidateInfo(CandidateInfoProto.newBuilder().setLastLeaderElapsedTimeMs(sinceLeaderMs))
        .build();
  }

  private static ServerRpcProto rpc(RaftPeerId peer, long elapsedMs) {
    return ServerRpcProto.newBuilder()
        .setId(RaftPeerProto.newBuilder().setId(peer.toByteString()))
        .setLastRpcElapsedTimeMs(elapsedMs)
        .build();
  }
}
