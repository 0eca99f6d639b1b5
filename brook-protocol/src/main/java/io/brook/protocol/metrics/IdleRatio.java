package io.brook.protocol.metrics;

import java.util.function.LongSupplier;

/**
 * The share of time, between 0 and 1, that a pool of threads spent idle: the gauge behind Kafka's
 * {@code NetworkProcessorAvgIdlePercent} and {@code RequestHandlerAvgIdlePercent} (which are ratios
 * too, despite their names). Each reading covers the time since the previous reading that is at
 * least {@link #MIN_INTERVAL_NANOS} old; a reading sooner than that answers the previous value, so
 * frequent scrapes (JMX and Prometheus at once) do not shorten each other's windows to nothing.
 */
public final class IdleRatio {
  static final long MIN_INTERVAL_NANOS = 1_000_000_000L;

  private final LongSupplier idleNanos;
  private final int threads;
  private final LongSupplier clock;
  private long lastNanos;
  private long lastIdle;
  private double value = 1.0;

  /**
   * @param idleNanos the threads' idle time so far, summed over the threads (never decreasing)
   * @param threads how many threads that sum covers
   */
  public IdleRatio(LongSupplier idleNanos, int threads, LongSupplier clock) {
    this.idleNanos = idleNanos;
    this.threads = threads;
    this.clock = clock;
    this.lastNanos = clock.getAsLong();
    this.lastIdle = idleNanos.getAsLong();
  }

  /** The idle share since the previous reading; called at scrape time only. */
  public synchronized double read() {
    long now = clock.getAsLong();
    long elapsed = now - lastNanos;
    if (elapsed < MIN_INTERVAL_NANOS) {
      return value;
    }
    long idle = idleNanos.getAsLong();
    double ratio = (double) (idle - lastIdle) / ((double) elapsed * threads);
    value = Math.max(0.0, Math.min(1.0, ratio));
    lastNanos = now;
    lastIdle = idle;
    return value;
  }
}
