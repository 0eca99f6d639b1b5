package io.brook.broker.metrics;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Time;

/**
 * A count of events with its one-minute rate, as Kafka's (Yammer) meters expose it: {@code Count}
 * is cumulative since start; {@code OneMinuteRate} is an exponentially weighted moving average over
 * one minute, updated every 5 seconds (Yammer's tick, so the numbers match what Kafka users see);
 * {@code MeanRate} is the count divided by the time since creation.
 *
 * <p>Ticks happen lazily, on {@link #mark()} and on reads, so an idle meter costs nothing. Meant
 * for rare events (ISR changes), not per-record counting: every operation takes the meter's lock.
 */
public final class Meter {
  /** Yammer's tick interval: the rate decays in 5-second steps. */
  static final long TICK_INTERVAL_MS = TimeUnit.SECONDS.toMillis(5);

  /** Yammer's one-minute alpha: {@code 1 - exp(-5 s / 60 s)}. */
  private static final double ONE_MINUTE_ALPHA = 1 - Math.exp(-5.0 / 60.0);

  private final Time time;
  private final long startMs;
  private long count;
  private long uncounted;
  private long lastTickMs;
  private double oneMinuteRatePerMs;
  private boolean initialized;

  public Meter(Time time) {
    this.time = time;
    this.startMs = time.milliseconds();
    this.lastTickMs = startMs;
  }

  /** One event. */
  public synchronized void mark() {
    tickIfNecessary();
    count++;
    uncounted++;
  }

  /** Events since creation. */
  public synchronized long count() {
    return count;
  }

  /** Events per second, averaged exponentially over the last minute. */
  public synchronized double oneMinuteRate() {
    tickIfNecessary();
    return oneMinuteRatePerMs * 1000;
  }

  /** Events per second since creation. */
  public synchronized double meanRate() {
    long elapsedMs = time.milliseconds() - startMs;
    return elapsedMs <= 0 ? 0 : count * 1000.0 / elapsedMs;
  }

  private void tickIfNecessary() {
    long now = time.milliseconds();
    long ticks = (now - lastTickMs) / TICK_INTERVAL_MS;
    if (ticks <= 0) {
      return;
    }
    lastTickMs += ticks * TICK_INTERVAL_MS;
    for (long i = 0; i < ticks; i++) {
      double instantRatePerMs = (double) uncounted / TICK_INTERVAL_MS;
      uncounted = 0;
      if (initialized) {
        oneMinuteRatePerMs += ONE_MINUTE_ALPHA * (instantRatePerMs - oneMinuteRatePerMs);
      } else {
        oneMinuteRatePerMs = instantRatePerMs;
        initialized = true;
      }
      if (oneMinuteRatePerMs == 0 && i > 0) {
        break; // nothing more to decay
      }
    }
  }
}
