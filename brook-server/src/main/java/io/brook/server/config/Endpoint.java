package io.brook.server.config;

import java.util.Objects;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * One entry of {@code listeners} or {@code advertised.listeners}: {@code NAME://host:port}.
 *
 * @param listenerName the listener name, upper-cased as Kafka normalises it (for example {@code
 *     PLAINTEXT} or {@code CONTROLLER}).
 * @param host the host; empty in {@code listeners} means "bind every interface". Advertised
 *     endpoints never have an empty host: {@link BrokerConfig#advertisedListeners()} replaces it
 *     with the machine's canonical host name, as Kafka does.
 * @param port the port; 0 asks the operating system for a free one.
 * @param securityProtocol what {@code listener.security.protocol.map} says the listener speaks.
 */
public record Endpoint(
    String listenerName, String host, int port, SecurityProtocol securityProtocol) {

  public Endpoint {
    Objects.requireNonNull(listenerName, "listenerName");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(securityProtocol, "securityProtocol");
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
    }
  }

  /** Whether the host is empty, meaning every local interface. */
  public boolean wildcardHost() {
    return host.isEmpty();
  }

  /** The endpoint as Kafka writes it, with IPv6 hosts in brackets: {@code NAME://host:port}. */
  public String connectionString() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return listenerName + "://" + h + ":" + port;
  }

  @Override
  public String toString() {
    return connectionString() + " (" + securityProtocol.name + ")";
  }
}
