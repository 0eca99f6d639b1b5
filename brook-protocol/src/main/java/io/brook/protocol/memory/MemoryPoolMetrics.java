package io.brook.protocol.memory;

import io.brook.protocol.metrics.BrokerMetrics;

/**
 * Registers a {@link RequestMemoryPool}'s state under Kafka's names, {@code
 * kafka.network:type=SocketServer,name=MemoryPoolAvailable} and {@code ...,name=MemoryPoolUsed}
 * (gauges, in bytes).
 */
public final class MemoryPoolMetrics {
  private MemoryPoolMetrics() {}

  /** Adds the pool's gauges to {@code metrics}. */
  public static void register(BrokerMetrics metrics, RequestMemoryPool pool) {
    metrics.gauge("kafka.network", "SocketServer", "MemoryPoolAvailable", pool::available);
    metrics.gauge("kafka.network", "SocketServer", "MemoryPoolUsed", pool::used);
  }
}
