package io.brook.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/** The fair share's water level, and who it throttles when the broker is saturated. */
class FairShareTest {
  @Test
  void theLevelSharesTheBudgetEquallyAndGivesWhatLightClientsLeaveToTheOthers() {
    // Fits: no level
    assertThat(FairShare.waterLevel(100, new double[] {10, 20, 30})).isEqualTo(Double.MAX_VALUE);
    // 10 and 20 keep theirs; the 70 left is split between the two heavy ones
    assertThat(FairShare.waterLevel(100, new double[] {500, 10, 20, 90})).isEqualTo(35);
    // All heavy: an equal split
    assertThat(FairShare.waterLevel(90, new double[] {100, 200, 300})).isEqualTo(30);
  }

  private static RequestContext context(String clientId) {
    return new RequestContext(
        new RequestHeader(ApiKeys.PRODUCE, ApiKeys.PRODUCE.latestVersion(), clientId, 1),
        "PLAINTEXT",
        InetAddress.getLoopbackAddress(),
        "c1",
        System.nanoTime());
  }

  @Test
  void aSaturatedBrokerThrottlesTheHeaviestProducerAndNotTheLightOne() {
    try (Metrics metrics = new Metrics()) {
      // Given: a budget of 10,000 B/s, no quotas
      ClientQuotaManager quotas = new ClientQuotaManager(metrics, Time.SYSTEM, 11, 1, 10_000);
      ProduceRequestData produce = new ProduceRequestData();
      ProduceResponseData answer = new ProduceResponseData();

      // When: a light producer at 1,000 B/s and a backfill at 15,000 B/s over the 10 s window
      int light = quotas.onAnswered(context("light"), produce, 10_000, answer, 0);
      int heavy = quotas.onAnswered(context("backfill"), produce, 150_000, answer, 0);
      int lightAgain = quotas.onAnswered(context("light"), produce, 100, answer, 0);

      // Then: the backfill is over the level (9,000 B/s left after the light one's 1,000), by
      // (15,000 - 9,000) / 9,000 × 10 s; the light producer is never throttled
      assertThat(light).isZero();
      assertThat(heavy).isBetween(6_000, 7_000);
      assertThat(lightAgain).isZero();
    }
  }

  @Test
  void withoutABudgetNothingIsThrottled() {
    try (Metrics metrics = new Metrics()) {
      ClientQuotaManager quotas = new ClientQuotaManager(metrics, Time.SYSTEM, 11, 1, 0);

      int heavy =
          quotas.onAnswered(
              context("backfill"),
              new ProduceRequestData(),
              100_000_000,
              new ProduceResponseData(),
              0);

      assertThat(heavy).isZero();
    }
  }
}
