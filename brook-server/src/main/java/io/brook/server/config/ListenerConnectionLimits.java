package io.brook.server.config;

import io.brook.protocol.network.AcceptLimits;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * The accept-side limits of the data listeners, as Kafka resolves them: the broker-wide {@code
 * max.connection.creation.rate}, and per listener {@code listener.name.<l>.max.connections} and
 * {@code listener.name.<l>.max.connection.creation.rate} (listener name in any case). The
 * inter-broker listener is named so the network server can exempt it from the broker-wide limits.
 */
final class ListenerConnectionLimits {
  static final String MAX_CONNECTION_CREATION_RATE = "max.connection.creation.rate";
  private static final String MAX_CONNECTIONS = "max.connections";
  private static final String PREFIX = "listener.name.";

  private ListenerConnectionLimits() {}

  static AcceptLimits of(BrokerConfig config) {
    Map<String, AcceptLimits.ListenerLimits> listeners = new HashMap<>();
    for (Endpoint endpoint : config.listeners()) {
      String name = endpoint.listenerName();
      String prefix = PREFIX + name.toLowerCase(Locale.ROOT) + ".";
      int maxConnections = perListener(config, prefix + MAX_CONNECTIONS);
      int rate = perListener(config, prefix + MAX_CONNECTION_CREATION_RATE);
      if (maxConnections != Integer.MAX_VALUE || rate != Integer.MAX_VALUE) {
        listeners.put(name, new AcceptLimits.ListenerLimits(maxConnections, rate));
      }
    }
    return new AcceptLimits(
        (Integer) config.value(MAX_CONNECTION_CREATION_RATE),
        listeners,
        config.interBrokerListenerName());
  }

  /** A per-listener limit (any case of the listener name), or unlimited when unset. */
  private static int perListener(BrokerConfig config, String lowerCaseKey) {
    for (Map.Entry<String, String> entry : config.originals().entrySet()) {
      if (entry.getKey().toLowerCase(Locale.ROOT).equals(lowerCaseKey)
          && entry.getValue() != null
          && !entry.getValue().isBlank()) {
        try {
          int value = Integer.parseInt(entry.getValue().trim());
          if (value < 0) {
            throw new ConfigException(entry.getKey(), entry.getValue(), "must not be negative");
          }
          return value;
        } catch (NumberFormatException e) {
          throw new ConfigException(entry.getKey(), entry.getValue(), "is not an integer");
        }
      }
    }
    return Integer.MAX_VALUE;
  }
}
