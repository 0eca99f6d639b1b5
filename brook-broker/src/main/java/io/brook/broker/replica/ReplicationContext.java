package io.brook.broker.replica;

import java.util.function.IntPredicate;
import org.apache.kafka.common.utils.Time;

/**
 * What a leader partition needs from its broker to keep its ISR.
 *
 * @param isrChanges where ISR changes go (the controller)
 * @param isrEligible whether a broker may join an ISR: registered and unfenced in the current
 *     metadata (KIP-841)
 * @param replicaLagTimeMaxMs {@code replica.lag.time.max.ms}: a follower not caught up for this
 *     long leaves the ISR
 * @param time the clock of fetch and caught-up times
 * @param metrics where committed and refused ISR changes are counted
 */
public record ReplicationContext(
    IsrChangeSender isrChanges,
    IntPredicate isrEligible,
    long replicaLagTimeMaxMs,
    Time time,
    ReplicationMetrics metrics) {
  /** Kafka's default {@code replica.lag.time.max.ms}. */
  public static final long DEFAULT_LAG_TIME_MAX_MS = 30_000;

  /** With meters of its own, on {@code time}. */
  public ReplicationContext(
      IsrChangeSender isrChanges, IntPredicate isrEligible, long replicaLagTimeMaxMs, Time time) {
    this(isrChanges, isrEligible, replicaLagTimeMaxMs, time, new ReplicationMetrics());
  }

  /** A node without a controller to talk to: no ISR changes, so an ISR never changes. */
  public static ReplicationContext standalone() {
    return new ReplicationContext(
        IsrChangeSender.NONE, id -> false, DEFAULT_LAG_TIME_MAX_MS, Time.SYSTEM);
  }
}
