package io.brook.metadata.record;

import java.util.Objects;

/**
 * One listener a broker accepts connections on.
 *
 * @param listenerName the listener's name, for example {@code PLAINTEXT}
 * @param host the advertised host
 * @param port the advertised port, 0 to 65535
 * @param securityProtocol the security protocol's name, for example {@code PLAINTEXT}
 */
public record BrokerEndpoint(String listenerName, String host, int port, String securityProtocol) {
  public BrokerEndpoint {
    Objects.requireNonNull(listenerName, "listenerName");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(securityProtocol, "securityProtocol");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }
}
