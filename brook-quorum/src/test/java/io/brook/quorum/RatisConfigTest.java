package io.brook.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

class RatisConfigTest {
  @Test
  void followersAppendEveryRequestThemselvesRatherThanComposingOverlappingOnes() {
    // Composing lets a follower acknowledge entries it skipped as duplicates, after which a
    // healed node's log stops following for good (see RatisConfig#properties).
    QuorumSettings settings =
        new QuorumSettings(
            1,
            Map.of(1, new InetSocketAddress("127.0.0.1", 9093)),
            Path.of("unused"),
            Duration.ofSeconds(1),
            Duration.ofSeconds(5),
            1000,
            QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES);

    RaftProperties props = RatisConfig.properties(settings);

    assertThat(RaftServerConfigKeys.Log.appendEntriesComposeEnabled(props)).isFalse();
  }
}
