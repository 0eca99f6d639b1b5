package io.brook.controller.state;

import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the active controller last heard from each broker, and which unfenced brokers have been
 * silent longer than {@code broker.session.timeout.ms}. Kept only in the active controller's
 * memory, as in Kafka: a new active controller starts every session afresh, so a failover never
 * fences a live broker.
 *
 * <p>Sessions are judged only while this controller checks them regularly: a check that comes more
 * than half a session timeout after the one before means the controller itself was held back (its
 * process paused, its scheduler starved), and the heartbeats of that time may be waiting unread in
 * its sockets, so every session starts afresh instead, as after a failover. A live broker is never
 * fenced because its controller stopped listening.
 *
 * <p>Thread-safe (every method is synchronized; calls are rare and short).
 */
public final class BrokerSessions {
  private static final Logger log = LoggerFactory.getLogger(BrokerSessions.class);

  private final long sessionTimeoutMs;
  private final LongSupplier clockMs;
  private final Map<Integer, Long> lastContactMs = new HashMap<>();

  /** When {@link #expired} last ran, or -1 before the first check of this controller's term. */
  private long lastCheckMs = -1;

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

  /** Forgets every session: called when this node becomes the active controller. */
  public synchronized void reset() {
    lastContactMs.clear();
    lastCheckMs = -1;
  }

  /**
   * The unfenced brokers of {@code image} not heard from for longer than the session timeout. A
   * broker never heard from by this controller starts its session now; so does every broker when
   * this check comes more than half a session timeout after the one before (see above).
   */
  public synchronized List<Integer> expired(MetadataImage image) {
    long now = clockMs.getAsLong();
    long sinceLastCheck = lastCheckMs < 0 ? 0 : now - lastCheckMs;
    lastCheckMs = now;
    if (sinceLastCheck > sessionTimeoutMs / 2) {
      log.warn(
          "Broker sessions restart: this controller checked none for {} ms (paused or starved),"
              + " so it cannot tell a silent broker from heartbeats it has not read yet",
          sinceLastCheck);
      lastContactMs.clear();
    }
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
}
