package io.brook.broker.quota;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Rate;

/**
 * The broker-wide fair share of produce bandwidth ({@code brook.quota.fair.share.bytes.per.second},
 * Brook's own, off by default): while the bytes all clients produce to this broker exceed the
 * budget, the broker is saturated, and each client is entitled to an equal share of the budget, a
 * share a light client does not use going to the others (max-min fairness). The resulting water
 * level works as a produce quota for every client above it: the heaviest clients are throttled
 * first and longest, in proportion to how far they are over, while a client below the level is
 * never throttled, whether or not any quota is configured.
 *
 * <p>The level is computed from the clients' measured rates at most every {@link #REFRESH_MS}, not
 * per request. Thread-safe.
 */
final class FairShare {
  /** How often the water level is recomputed from the clients' rates. */
  static final long REFRESH_MS = 100;

  private final double budget;
  private final Sensor total;
  private final KafkaMetric totalRate;

  private volatile double level = Double.MAX_VALUE;
  private volatile long levelAtMs = -REFRESH_MS; // computed at the first need

  FairShare(Metrics metrics, long budgetBytesPerSecond, int windowNum, int windowSizeSeconds) {
    this.budget = budgetBytesPerSecond;
    MetricConfig config =
        new MetricConfig().timeWindow(windowSizeSeconds, TimeUnit.SECONDS).samples(windowNum);
    synchronized (metrics) {
      this.total = metrics.sensor("brook-fair-share-produce", config);
      var name =
          metrics.metricName(
              "byte-rate",
              "brook-fair-share",
              "Bytes per second produced to this broker by all clients");
      KafkaMetric existing = metrics.metric(name);
      if (existing == null) {
        total.add(name, new Rate(), config);
        existing = metrics.metric(name);
      }
      this.totalRate = existing;
      var levelName =
          metrics.metricName(
              "level",
              "brook-fair-share",
              "The produce rate above which clients are throttled while the broker is saturated");
      if (metrics.metric(levelName) == null) {
        metrics.addMetric(levelName, (c, now) -> saturated() ? level : Double.MAX_VALUE);
      }
    }
  }

  /** A {@link Rate} metric's value now (under its sensor's lock, on the registry's clock). */
  static double rateNow(KafkaMetric rate) {
    return (Double) rate.metricValue();
  }

  /** Whether all clients together produce more than the budget. */
  private boolean saturated() {
    return rateNow(totalRate) > budget;
  }

  /** Counts bytes produced by any client. */
  void record(long bytes, long nowMs) {
    total.record(bytes, nowMs, false);
  }

  /**
   * The rate above which a client is throttled now: the water level while the broker is saturated,
   * {@link Double#MAX_VALUE} otherwise.
   *
   * @param rates the measured produce rates of the active clients, asked for only when the level is
   *     recomputed
   */
  double level(long nowMs, Supplier<double[]> rates) {
    if (!saturated()) {
      return Double.MAX_VALUE;
    }
    if (nowMs - levelAtMs >= REFRESH_MS) {
      synchronized (this) {
        if (nowMs - levelAtMs >= REFRESH_MS) {
          level = waterLevel(budget, rates.get());
          levelAtMs = nowMs;
        }
      }
    }
    return level;
  }

  /**
   * Max-min fairness: the level {@code L} at which the clients' rates, each capped at {@code L},
   * add up to the budget. Clients below {@code L} keep their rate; the others share what is left
   * equally. {@link Double#MAX_VALUE} when the rates fit the budget as they are.
   */
  static double waterLevel(double budget, double[] rates) {
    double[] sorted = rates.clone();
    Arrays.sort(sorted);
    double remaining = budget;
    for (int i = 0; i < sorted.length; i++) {
      double share = remaining / (sorted.length - i);
      if (sorted[i] > share) {
        return share;
      }
      remaining -= sorted[i];
    }
    return Double.MAX_VALUE;
  }
}
