package io.brook.metadata.controller;

import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * When the active controller last heard from each broker, which unfenced brokers have been silent
 * longer than {@code broker.session.timeout.ms}, and which have served metadata older than the
 * controller's for longer than that. Kept only in the active controller's memory, as in Kafka: a
 * new active controller starts every session afresh, so a failover never fences a live broker.
 *
 * <p>Thread-safe (every method is synchronized; calls are rare and short).
 */
public final class BrokerSessions {
  private final long sessionTimeoutMs;
  private final LongSupplier clockMs;
  private final Map<Integer, Long> lastContactMs = new HashMap<>();
  private final Map<Integer, Lag> lags = new HashMap<>();

  /**
   * A broker behind the controller: since {@code sinceMs} it has not reached {@code targetOffset},
   * the controller's offset when the lag was first seen; {@code brokerOffset} is its latest report.
   */
  private record Lag(long targetOffset, long sinceMs, long brokerOffset) {}

  /**
   * An unfenced broker whose metadata has been behind for longer than the session timeout.
   *
   * @param brokerOffset the offset of its image, as its latest heartbeat reported it
   * @param controllerOffset the controller's offset it has not reached for {@code behindMs}
   */
  public record Lagging(int brokerId, long brokerOffset, long controllerOffset, long behindMs) {}

  /**
   * @param sessionTimeoutMs Kafka's {@code broker.session.timeout.ms}
   * @param clockMs a monotonic clock in milliseconds (injected so tests run on virtual time)
   */
  public BrokerSessions(long sessionTimeoutMs, LongSupplier clockMs) {
    if (sessionTimeoutMs <= 0) {
      throw new IllegalArgumentException("sessionTimeoutMs must be positive");
    }
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.clockMs = clockMs;
  }

  /** Records a registration or heartbeat from {@code brokerId} now. */
  public synchronized void touch(int brokerId) {
    lastContactMs.put(brokerId, clockMs.getAsLong());
  }

  /**
   * Records the offset of a broker's metadata image, as its heartbeat reported it, against the
   * controller's own (committed) offset now. The lag is measured against a fixed target, not the
   * moving head: a broker that follows a busy log is always a few records behind the head, but it
   * keeps reaching every target within milliseconds; one whose image is stuck (its Raft log stopped
   * following, say) never reaches it.
   */
  public synchronized void metadataOffset(int brokerId, long brokerOffset, long controllerOffset) {
    Lag lag = lags.get(brokerId);
    if (lag != null && brokerOffset >= lag.targetOffset()) {
      lags.remove(brokerId);
      lag = null;
    }
    if (lag != null) {
      lags.put(brokerId, new Lag(lag.targetOffset(), lag.sinceMs(), brokerOffset));
    } else if (brokerOffset < controllerOffset) {
      lags.put(brokerId, new Lag(controllerOffset, clockMs.getAsLong(), brokerOffset));
    }
  }

  /**
   * Whether {@code brokerId} has been behind the controller for longer than the session timeout.
   */
  public synchronized boolean isLagging(int brokerId) {
    Lag lag = lags.get(brokerId);
    return lag != null && clockMs.getAsLong() - lag.sinceMs() > sessionTimeoutMs;
  }

  /** Forgets every session: called when this node becomes the active controller. */
  public synchronized void reset() {
    lastContactMs.clear();
    lags.clear();
  }

  /**
   * The unfenced brokers of {@code image} not heard from for longer than the session timeout. A
   * broker never heard from by this controller starts its session now.
   */
  public synchronized List<Integer> expired(MetadataImage image) {
    long now = clockMs.getAsLong();
    List<Integer> expired = new ArrayList<>();
    for (BrokerRegistration broker : image.brokers().values()) {
      if (broker.fenced()) {
        continue;
      }
      Long last = lastContactMs.putIfAbsent(broker.id(), now);
      if (last != null && now - last > sessionTimeoutMs) {
        expired.add(broker.id());
      }
    }
    return expired;
  }

  /** The unfenced brokers of {@code image} whose metadata lags by more than the session timeout. */
  public synchronized List<Lagging> lagging(MetadataImage image) {
    long now = clockMs.getAsLong();
    List<Lagging> lagging = new ArrayList<>();
    for (BrokerRegistration broker : image.brokers().values()) {
      Lag lag = lags.get(broker.id());
      if (!broker.fenced() && lag != null && now - lag.sinceMs() > sessionTimeoutMs) {
        lagging.add(
            new Lagging(broker.id(), lag.brokerOffset(), lag.targetOffset(), now - lag.sinceMs()));
      }
    }
    return lagging;
  }
}
