package io.brook.broker.quota;

import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.QuotaViolationException;
import org.apache.kafka.common.metrics.stats.Rate;

/** How long a client over its quota is throttled, as Kafka computes it. */
final class ThrottleTime {
  private ThrottleTime() {}

  /**
   * The time that brings the measured rate back to the bound: the excess over the bound, as a share
   * of the bound, times the window the rate was measured over. With a rate {@code r} over a window
   * {@code w} and bound {@code b}, waiting {@code (r - b) / b * w} makes the same amount over
   * {@code w + t} equal {@code b}.
   */
  static long of(double value, double bound, long windowMs) {
    return Math.round((value - bound) / bound * windowMs);
  }

  /** The throttle time of a violation of a {@link Rate} metric at {@code nowMs}. */
  static long of(QuotaViolationException e, long nowMs) {
    KafkaMetric metric = e.metric();
    long windowMs = ((Rate) metric.measurable()).windowSize(metric.config(), nowMs);
    return of(e.value(), e.bound(), windowMs);
  }
}
