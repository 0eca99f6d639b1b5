package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.replica.fetcher.ReplicaFetchConfig;
import io.brook.server.config.CombinedNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Follower fetching is configured by Kafka's names (and Brook's stall timeout). */
class ReplicationConfigsTest {

  @Test
  void withoutSettingsFollowersFetchWithKafkasDefaultsAndAThreeSecondStallTimeout() {
    assertThat(ReplicationConfigs.fetch(CombinedNode.config(Map.of())))
        .isEqualTo(ReplicaFetchConfig.defaults("PLAINTEXT"));
  }

  @Test
  void everyFetchSettingIsRead() {
    ReplicaFetchConfig config =
        ReplicationConfigs.fetch(
            CombinedNode.config(
                Map.of(
                    "num.replica.fetchers", "2",
                    "replica.fetch.max.bytes", "2048",
                    "replica.fetch.response.max.bytes", "4096",
                    "replica.fetch.min.bytes", "8",
                    "replica.fetch.wait.max.ms", "250",
                    "replica.fetch.backoff.ms", "300",
                    "replica.socket.timeout.ms", "20000",
                    "brook.replica.fetch.stall.timeout.ms", "1500",
                    "replica.socket.receive.buffer.bytes", "-1")));

    assertThat(config)
        .isEqualTo(
            new ReplicaFetchConfig(2, 2048, 4096, 8, 250, 300, 20_000, 1_500, -1, "PLAINTEXT"));
  }
}
