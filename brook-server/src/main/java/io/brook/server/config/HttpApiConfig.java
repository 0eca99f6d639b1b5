package io.brook.server.config;

import java.net.URI;

/**
 * The HTTP API's settings ({@code brook.http.*}).
 *
 * @param listener where it binds, or null for no HTTP API
 * @param authenticationListener the SASL listener whose credentials HTTP Basic is checked against
 *     (upper case), or null for none (requests act as {@code User:ANONYMOUS})
 * @param maxRequestBytes the largest request body
 * @param fetchMaxBytes the cap on a fetch's {@code max_bytes}
 * @param tls whether the listener is {@code https://}
 */
public record HttpApiConfig(
    URI listener,
    String authenticationListener,
    int maxRequestBytes,
    int fetchMaxBytes,
    boolean tls) {
  /**
   * The listener name whose {@code listener.name.http.ssl.*} settings the HTTPS listener takes
   * (each over the broker-wide {@code ssl.*} one), as a Kafka listener of that name would.
   */
  public static final String TLS_LISTENER_NAME = "HTTP";
}
