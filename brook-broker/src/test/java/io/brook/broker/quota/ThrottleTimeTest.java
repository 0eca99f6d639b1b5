package io.brook.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Quota;
import org.apache.kafka.common.metrics.QuotaViolationException;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.TokenBucket;
import org.junit.jupiter.api.Test;

class ThrottleTimeTest {

  @Test
  void theExcessOverTheBoundAsAShareOfItTimesTheWindow() {
    // 20% over a 10 s window: 2 s brings the rate back to the bound
    assertThat(ThrottleTime.of(120, 100, 10_000)).isEqualTo(2_000);
    assertThat(ThrottleTime.of(100, 100, 10_000)).isZero();
    assertThat(ThrottleTime.of(300, 100, 11_000)).isEqualTo(22_000);
  }

  @Test
  void aBucketInDebtIsThrottledUntilItRefillsToZero() {
    // Given: a bucket of 11 windows of 1 s at 1,000/s, as kafka-clients' TokenBucket sizes it
    long now = 1_000_000;
    try (Metrics metrics = new Metrics()) {
      MetricConfig config =
          new MetricConfig()
              .timeWindow(1, TimeUnit.SECONDS)
              .samples(11)
              .quota(Quota.upperBound(1_000));
      Sensor sensor = metrics.sensor("Produce-:client", config);
      sensor.add(metrics.metricName("tokens", "Produce", "", Map.of()), new TokenBucket());

      // When: 13,000 at once, 2,000 more than the bucket holds
      sensor.record(9_000, now);
      QuotaViolationException violation = null;
      try {
        sensor.record(4_000, now);
      } catch (QuotaViolationException e) {
        violation = e;
      }

      // Then: 2 s refill the debt; half a second later it is still in debt (and charged 1 more)
      assertThat(violation).isNotNull();
      assertThat(violation.value()).isEqualTo(-2_000.0);
      assertThat(ThrottleTime.ofDebt(violation)).isEqualTo(2_000);
      assertThatThrownBy(() -> sensor.record(1, now + 500))
          .isInstanceOf(QuotaViolationException.class);
      sensor.record(1, now + 2_002);
    }
  }
}
