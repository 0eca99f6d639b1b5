package io.brook.protocol.network;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.stats.Rate;

/**
 * Kafka's per-address connection creation rate (KIP-612): the {@code connection_creation_rate}
 * client quota of an {@code ip} entity, or of the {@code ip} default entity, measured per address
 * as a {@link Rate} over {@code quota.window.num} windows of {@code quota.window.size.seconds}.
 *
 * <p>A connection that takes its address over the quota is not counted (Kafka un-records it) and is
 * closed after the time that brings the rate back to the quota, at most one window: the client is
 * slowed down, as by Kafka's {@code ConnectionThrottledException}, instead of retrying at once.
 *
 * <p>Thread-safe: every listener's event loops call it, on each accepted connection only.
 */
public final class IpConnectionRates {
  /** Kafka's "no quota" for an address ({@code QuotaConfig.IP_CONNECTION_RATE_DEFAULT}). */
  public static final int UNLIMITED = Integer.MAX_VALUE;

  /** Kafka drops an address's rate after an hour without connections. */
  private static final long INACTIVE_MS = TimeUnit.HOURS.toMillis(1);

  /** Addresses measured at once; past it the inactive ones are dropped, then all if need be. */
  private static final int MAX_TRACKED = 10_000;

  /**
   * The quotas in force and how they are measured.
   *
   * @param perAddress {@code connection_creation_rate} of the {@code ip} entities with a name
   * @param defaultRate that of the {@code ip} default entity, or {@link #UNLIMITED}
   * @param windowNum {@code quota.window.num}
   * @param windowSizeSeconds {@code quota.window.size.seconds}
   */
  public record Quotas(
      Map<InetAddress, Integer> perAddress, int defaultRate, int windowNum, int windowSizeSeconds) {
    /** No quota: no address is measured. */
    public static final Quotas NONE = new Quotas(Map.of(), UNLIMITED, 11, 1);

    public Quotas {
      perAddress = Map.copyOf(perAddress);
      if (windowNum < 1 || windowSizeSeconds < 1) {
        throw new IllegalArgumentException("quota windows must be positive");
      }
    }

    int of(InetAddress address) {
      return perAddress.getOrDefault(address, defaultRate);
    }
  }

  private final LongSupplier millisClock;
  private Quotas quotas = Quotas.NONE;
  private MetricConfig window = windowConfig(Quotas.NONE);
  private final Map<InetAddress, Measured> measured = new HashMap<>();
  private long throttled;

  /**
   * @param millisClock {@link System#currentTimeMillis}, or a test's clock
   */
  public IpConnectionRates(LongSupplier millisClock) {
    this.millisClock = millisClock;
  }

  /** Applies new quotas; addresses already measured keep their history. */
  public synchronized void update(Quotas next) {
    if (next.windowNum() != quotas.windowNum()
        || next.windowSizeSeconds() != quotas.windowSizeSeconds()) {
      measured.clear(); // samples of another width cannot be compared
      window = windowConfig(next);
    }
    quotas = next;
  }

  /** The quotas in force. */
  public synchronized Quotas quotas() {
    return quotas;
  }

  /**
   * Records a new connection from {@code address} and answers how long to hold it before closing
   * it: 0 when it is within its address's quota (then it counts), else the throttle time (then it
   * does not count).
   */
  public synchronized long throttleMs(InetAddress address) {
    int quota = quotas.of(address);
    if (quota == UNLIMITED) {
      return 0;
    }
    long nowMs = millisClock.getAsLong();
    Measured rate = measured.get(address);
    if (rate == null) {
      makeRoom(nowMs);
      rate = new Measured();
      measured.put(address, rate);
    }
    rate.lastRecordMs = nowMs;
    rate.rate.record(window, 1, nowMs);
    double value = rate.rate.measure(window, nowMs);
    if (value <= quota) {
      return 0;
    }
    // Kafka's throttle time: what brings the rate back to the quota, at most one window.
    long windowMs = rate.rate.windowSize(window, nowMs);
    long throttleMs =
        Math.min(Math.round((value - quota) / quota * windowMs), window.timeWindowMs());
    if (throttleMs <= 0) {
      return 0;
    }
    rate.rate.record(window, -1, nowMs); // refused: it does not count against the address
    throttled++;
    return throttleMs;
  }

  /** Connections refused by an address's rate since start. */
  public synchronized long throttledConnections() {
    return throttled;
  }

  /** Addresses currently measured. */
  public synchronized int trackedAddresses() {
    return measured.size();
  }

  private void makeRoom(long nowMs) {
    if (measured.size() < MAX_TRACKED) {
      return;
    }
    for (Iterator<Measured> it = measured.values().iterator(); it.hasNext(); ) {
      if (nowMs - it.next().lastRecordMs > INACTIVE_MS) {
        it.remove();
      }
    }
    if (measured.size() >= MAX_TRACKED) {
      measured.clear(); // bounded memory over exact history for this many addresses
    }
  }

  private static MetricConfig windowConfig(Quotas quotas) {
    return new MetricConfig()
        .samples(quotas.windowNum())
        .timeWindow(quotas.windowSizeSeconds(), TimeUnit.SECONDS);
  }

  /** One address's rate. */
  private static final class Measured {
    final Rate rate = new Rate();
    long lastRecordMs;
  }
}
