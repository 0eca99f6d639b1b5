package io.brook.broker.replica.fetcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FetchStallTimeoutTest {

  @Test
  void aFetchMayGoUnansweredTheWaitPlusTheStallTimeoutDoubledPerStallUpToTheSocketTimeout() {
    // Kafka's defaults: wait 500 ms, socket timeout 30 s; Brook's stall timeout 3 s
    ReplicaFetchConfig config = ReplicaFetchConfig.defaults("REPLICATION");

    assertThat(IntStream.range(0, 6).map(n -> ReplicaFetcherThread.fetchTimeoutMs(config, n)))
        .containsExactly(3_500, 6_500, 12_500, 24_500, 30_000, 30_000);
    assertThat(ReplicaFetcherThread.fetchTimeoutMs(config, Integer.MAX_VALUE)).isEqualTo(30_000);
  }

  @Test
  void aStallTimeoutAsLongAsTheSocketTimeoutWaitsAsKafkaDoes() {
    ReplicaFetchConfig config =
        new ReplicaFetchConfig(1, 1 << 20, 10 << 20, 1, 500, 1_000, 30_000, 30_000, 65_536, "R");

    assertThat(ReplicaFetcherThread.fetchTimeoutMs(config, 0)).isEqualTo(30_000);
  }
}
