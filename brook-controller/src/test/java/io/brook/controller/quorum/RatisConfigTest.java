package io.brook.controller.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

class RatisConfigTest {
  @Test
  void followersAppendEveryRequestThemselvesRatherThanComposingOverlappingOnes() {
    // Composing lets a follower acknowledge entries it skipped as duplicates, after which a
    // healed node's log stops following for good (see RatisConfig#properties).
    RaftProperties props = RatisConfig.properties(settings(Duration.ofSeconds(1)));

    assertThat(RaftServerConfigKeys.Log.appendEntriesComposeEnabled(props)).isFalse();
  }

  @Test
  void theLeaderRetriesAFailingFollowerWithinTheShortestElectionWait() {
    RaftProperties props = RatisConfig.properties(settings(Duration.ofSeconds(1)));

    String policy = RaftServerConfigKeys.Log.Appender.retryPolicy(props);

    assertThat(policy).isEqualTo("1ms,10, 33ms,20, 166ms,1000");
    // Ratis parses it when a follower's appender starts; a malformed policy would fail there.
    RetryPolicy parsed =
        RetryPolicy.parse(policy, RaftServerConfigKeys.Log.Appender.RETRY_POLICY_KEY);
    assertThat(parsed.handleAttemptFailure(() -> 40).getSleepTime().toLong(TimeUnit.MILLISECONDS))
        .isLessThanOrEqualTo(
            RaftServerConfigKeys.Rpc.timeoutMin(props).toLong(TimeUnit.MILLISECONDS));
  }

  @Test
  void aLeaderThatLostItsMajorityMayStandAgainAfterAnElectionTimeout() {
    // Ratis's default (10 s) left the quorum without a leader for that long whenever the old
    // leader was the only voter left with the whole log.
    RaftProperties props = RatisConfig.properties(settings(Duration.ofSeconds(1)));

    assertThat(
            RaftServerConfigKeys.LeaderElection.leaderStepDownWaitTime(props)
                .toLong(TimeUnit.MILLISECONDS))
        .isEqualTo(1_000);
  }

  @Test
  void aFollowerWaitsForASilentLeaderAtMostTheElectionTimeout() {
    RaftProperties props = RatisConfig.properties(settings(Duration.ofSeconds(1)));

    // A Ratis follower stands only after a whole drawn timeout without hearing from the leader,
    // so the longest wait is what was left of the draw running when the leader fell silent plus
    // one more: twice the maximum, which must be the election timeout.
    long min = RaftServerConfigKeys.Rpc.timeoutMin(props).toLong(TimeUnit.MILLISECONDS);
    long max = RaftServerConfigKeys.Rpc.timeoutMax(props).toLong(TimeUnit.MILLISECONDS);
    assertThat(2 * max).isEqualTo(1000);
    assertThat(min).isEqualTo(250);
  }

  @Test
  void aSingleVoterStandsForElectionAtOnceAndSeveralKeepRatisTimeouts() {
    RaftProperties single = RatisConfig.properties(settings(Duration.ofSeconds(1)));
    RaftProperties three =
        RatisConfig.properties(
            new QuorumSettings(
                1,
                Map.of(
                    1, new InetSocketAddress("127.0.0.1", 9093),
                    2, new InetSocketAddress("127.0.0.1", 9094),
                    3, new InetSocketAddress("127.0.0.1", 9095)),
                Path.of("unused"),
                Duration.ofSeconds(1),
                Duration.ofSeconds(5),
                1000,
                QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES));

    assertThat(
            RaftServerConfigKeys.Rpc.firstElectionTimeoutMax(single).toLong(TimeUnit.MILLISECONDS))
        .isEqualTo(2 * RatisConfig.SINGLE_VOTER_FIRST_ELECTION_MS);
    assertThat(RaftServerConfigKeys.LeaderElection.preVote(single)).isFalse();
    assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMax(three))
        .isEqualTo(RaftServerConfigKeys.Rpc.timeoutMax(three));
    assertThat(RaftServerConfigKeys.LeaderElection.preVote(three)).isTrue();
  }

  private static QuorumSettings settings(Duration electionTimeout) {
    return new QuorumSettings(
        1,
        Map.of(1, new InetSocketAddress("127.0.0.1", 9093)),
        Path.of("unused"),
        electionTimeout,
        Duration.ofSeconds(5),
        1000,
        QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES);
  }
}
