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
import org.apache.kafka.common.metrics.stats.Rate;
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
  void aFreshSensorIsMeasuredOverTheWholeWindowAsKafkaDoes() {
    // Given: 11 windows of 1 s, a bound of 1,000/s, as quota.window.num and .size.seconds default
    long now = 1_000_000; // every record at the same instant: no sample has completed
    try (Metrics metrics = new Metrics()) {
      MetricConfig config =
          new MetricConfig()
              .timeWindow(1, TimeUnit.SECONDS)
              .samples(11)
              .quota(Quota.upperBound(1_000));
      Sensor sensor = metrics.sensor("Produce-:client", config);
      sensor.add(metrics.metricName("byte-rate", "Produce", "", Map.of()), new Rate());

      // When: 12,000 at once; a fresh rate is measured over the 10 complete windows it may have
      sensor.record(9_000, now);
      QuotaViolationException violation = null;
      try {
        sensor.record(3_000, now);
      } catch (QuotaViolationException e) {
        violation = e;
      }

      // Then: 1,200/s against 1,000/s over 10 s: 2 s of throttling
      assertThat(violation).isNotNull();
      assertThat(violation.value()).isEqualTo(1_200.0);
      assertThat(ThrottleTime.of(violation, now)).isEqualTo(2_000);
      assertThatThrownBy(() -> sensor.record(1, now)).isInstanceOf(QuotaViolationException.class);
    }
  }
}
