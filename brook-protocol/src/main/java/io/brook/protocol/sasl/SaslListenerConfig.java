package io.brook.protocol.sasl;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How one SASL listener ({@code SASL_PLAINTEXT}, {@code SASL_SSL}) authenticates its connections.
 *
 * @param mechanisms the enabled mechanisms ({@code sasl.enabled.mechanisms}) in the order
 *     advertised, each with the factory of its server side
 * @param maxReceiveSize {@code sasl.server.max.receive.size}: the largest frame read before a
 *     connection is authenticated; a larger length prefix closes the connection before anything is
 *     allocated
 * @param failedAuthenticationDelayMs {@code connection.failed.authentication.delay.ms}: how long a
 *     failed authentication's answer (and the close that follows) is held back, to slow down
 *     password guessing; 0 answers and closes at once
 * @param connectionsMaxReauthMs {@code connections.max.reauth.ms}: the session lifetime given to
 *     clients (KIP-368); a connection that sends anything but a re-authentication past it is
 *     closed. 0 means sessions never expire.
 */
public record SaslListenerConfig(
    Map<String, SaslServerFactory> mechanisms,
    int maxReceiveSize,
    long failedAuthenticationDelayMs,
    long connectionsMaxReauthMs) {

  /** Kafka's default {@code sasl.server.max.receive.size}: 512 KiB. */
  public static final int DEFAULT_MAX_RECEIVE_SIZE = 524288;

  /** Kafka's default {@code connection.failed.authentication.delay.ms}. */
  public static final long DEFAULT_FAILED_AUTHENTICATION_DELAY_MS = 100;

  public SaslListenerConfig {
    Objects.requireNonNull(mechanisms, "mechanisms");
    if (mechanisms.isEmpty()) {
      throw new IllegalArgumentException("a SASL listener needs at least one mechanism");
    }
    mechanisms = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(mechanisms));
    if (maxReceiveSize <= 0) {
      throw new IllegalArgumentException(
          "sasl.server.max.receive.size must be positive, was " + maxReceiveSize);
    }
    if (failedAuthenticationDelayMs < 0) {
      throw new IllegalArgumentException(
          "connection.failed.authentication.delay.ms must not be negative, was "
              + failedAuthenticationDelayMs);
    }
    if (connectionsMaxReauthMs < 0) {
      throw new IllegalArgumentException(
          "connections.max.reauth.ms must not be negative, was " + connectionsMaxReauthMs);
    }
  }

  /** The enabled mechanism names, in order. */
  public List<String> mechanismNames() {
    return List.copyOf(mechanisms.keySet());
  }
}
