package io.brook.broker.quota;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.metrics.QuotaViolationException;
import org.apache.kafka.common.metrics.stats.TokenBucket;

/** How long a client over its quota is throttled. */
final class ThrottleTime {
  private ThrottleTime() {}

  /**
   * Kafka's throttle time for a sampled rate (used by the fair share): the time that brings the
   * measured rate back to the bound: the excess over the bound, as a share of the bound, times the
   * window the rate was measured over. With a rate {@code r} over a window {@code w} and bound
   * {@code b}, waiting {@code (r - b) / b * w} makes the same amount over {@code w + t} equal
   * {@code b}.
   */
  static long of(double value, double bound, long windowMs) {
    return Math.round((value - bound) / bound * windowMs);
  }

  /**
   * The throttle time of a violation of a {@link TokenBucket}: the time the bucket, {@code
   * -e.value()} in debt, needs to refill to zero at the quota's rate per second.
   */
  static long ofDebt(QuotaViolationException e) {
    return Math.round(-e.value() / e.bound() * TimeUnit.SECONDS.toMillis(1));
  }
}
