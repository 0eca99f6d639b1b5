package io.brook.protocol.network;

import java.util.Map;

/**
 * The accept-side limits beyond {@code max.connections} and {@code max.connections.per.ip}, as
 * Kafka has them (KIP-402, KIP-612).
 *
 * @param maxConnectionCreationRate {@code max.connection.creation.rate}: new connections per second
 *     across the listeners other than the inter-broker one
 * @param listeners per-listener {@code listener.name.<l>.max.connections} and {@code
 *     listener.name.<l>.max.connection.creation.rate}, by listener name; absent listeners are
 *     unlimited
 * @param interBrokerListener {@code inter.broker.listener.name}, or null: when the server has more
 *     than one listener, this one is exempt from the broker-wide {@code max.connections} and {@code
 *     max.connection.creation.rate}, so replication keeps its connections when clients use up the
 *     rest
 */
public record AcceptLimits(
    int maxConnectionCreationRate,
    Map<String, ListenerLimits> listeners,
    String interBrokerListener) {

  /** No limit beyond the connection counts. */
  public static final AcceptLimits NONE = new AcceptLimits(Integer.MAX_VALUE, Map.of(), null);

  public AcceptLimits {
    if (maxConnectionCreationRate < 0) {
      throw new IllegalArgumentException("max.connection.creation.rate must not be negative");
    }
    listeners = Map.copyOf(listeners);
  }

  /** One listener's limits. */
  public record ListenerLimits(int maxConnections, int maxConnectionCreationRate) {
    public static final ListenerLimits UNLIMITED =
        new ListenerLimits(Integer.MAX_VALUE, Integer.MAX_VALUE);

    public ListenerLimits {
      if (maxConnections < 0 || maxConnectionCreationRate < 0) {
        throw new IllegalArgumentException("listener connection limits must not be negative");
      }
    }
  }

  ListenerLimits of(String listener) {
    return listeners.getOrDefault(listener, ListenerLimits.UNLIMITED);
  }
}
