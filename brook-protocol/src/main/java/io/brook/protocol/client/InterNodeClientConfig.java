package io.brook.protocol.client;

import io.brook.protocol.tls.SslEngines;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * How one {@link InterNodeClient} connects and sends, with Kafka's config names.
 *
 * @param clientId the request header's client id (shows in the peer's logs and quotas)
 * @param securityProtocol the security protocol of the peer's listener ({@link ConnectionSecurity})
 * @param connectionSetupTimeoutMs {@code socket.connection.setup.timeout.ms}: how long the first
 *     attempt to set a connection up (resolve, connect, security handshake, ApiVersions) may take;
 *     doubled after each consecutive failure, with 20% jitter
 * @param connectionSetupTimeoutMaxMs {@code socket.connection.setup.timeout.max.ms}: its bound
 * @param reconnectBackoffMs {@code reconnect.backoff.ms}: the pause after a failed or lost
 *     connection before the next attempt; doubled after each consecutive failure, with 20% jitter
 * @param reconnectBackoffMaxMs {@code reconnect.backoff.max.ms}: its bound
 * @param requestTimeoutMs default {@code request.timeout.ms} of a request, from {@code send} until
 *     its response (queueing included)
 * @param maxInFlightPerConnection requests written and not yet answered on one connection
 * @param maxQueuedPerConnection requests waiting for a connection or an in-flight slot; a send
 *     beyond it fails at once with {@link RequestQueueFullException}
 * @param maxResponseBytes the largest response frame accepted; a bigger size prefix closes the
 *     connection before anything is allocated
 * @param receiveBufferBytes {@code SO_RCVBUF}; -1 for the operating system's default
 * @param sasl how to authenticate on a SASL_PLAINTEXT or SASL_SSL listener ({@code
 *     sasl.mechanism.inter.broker.protocol} and the listener's JAAS credentials); null otherwise
 * @param tls the client-side TLS engines (the node's keystore for mutual TLS, its truststore);
 *     required for SSL and SASL_SSL, null otherwise
 */
public record InterNodeClientConfig(
    String clientId,
    SecurityProtocol securityProtocol,
    long connectionSetupTimeoutMs,
    long connectionSetupTimeoutMaxMs,
    long reconnectBackoffMs,
    long reconnectBackoffMaxMs,
    int requestTimeoutMs,
    int maxInFlightPerConnection,
    int maxQueuedPerConnection,
    int maxResponseBytes,
    int receiveBufferBytes,
    SaslClientCredentials sasl,
    SslEngines tls) {

  public InterNodeClientConfig {
    if (connectionSetupTimeoutMs < 1 || connectionSetupTimeoutMaxMs < 1) {
      // A maximum below the initial value keeps the initial one (as in kafka-clients).
      throw new IllegalArgumentException("connection set-up timeouts must be positive");
    }
    if (reconnectBackoffMs < 0 || reconnectBackoffMaxMs < 0) {
      throw new IllegalArgumentException("reconnect back-offs must not be negative");
    }
    if (requestTimeoutMs < 1 || maxInFlightPerConnection < 1 || maxQueuedPerConnection < 0) {
      throw new IllegalArgumentException(
          "request timeout and in-flight bound must be positive, the queue bound not negative");
    }
    if (maxResponseBytes < 8) {
      throw new IllegalArgumentException("maxResponseBytes too small: " + maxResponseBytes);
    }
  }

  /** Kafka's defaults (setup 10 s / 30 s, reconnect 50 ms / 1 s, request 30 s), plaintext. */
  public static InterNodeClientConfig defaults(String clientId) {
    return builder(clientId).build();
  }

  /**
   * Starts from {@link #defaults}; one in flight and 100 queued per connection, 100 MiB responses.
   */
  public static Builder builder(String clientId) {
    return new Builder(clientId);
  }

  /** Starts from this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder(clientId);
    b.securityProtocol = securityProtocol;
    b.connectionSetupTimeoutMs = connectionSetupTimeoutMs;
    b.connectionSetupTimeoutMaxMs = connectionSetupTimeoutMaxMs;
    b.reconnectBackoffMs = reconnectBackoffMs;
    b.reconnectBackoffMaxMs = reconnectBackoffMaxMs;
    b.requestTimeoutMs = requestTimeoutMs;
    b.maxInFlightPerConnection = maxInFlightPerConnection;
    b.maxQueuedPerConnection = maxQueuedPerConnection;
    b.maxResponseBytes = maxResponseBytes;
    b.receiveBufferBytes = receiveBufferBytes;
    b.sasl = sasl;
    b.tls = tls;
    return b;
  }

  /** Builds a configuration; the setters are named after the record's components. */
  public static final class Builder {
    private String clientId;
    private SecurityProtocol securityProtocol = SecurityProtocol.PLAINTEXT;
    private SaslClientCredentials sasl;
    private long connectionSetupTimeoutMs = 10_000;
    private long connectionSetupTimeoutMaxMs = 30_000;
    private long reconnectBackoffMs = 50;
    private long reconnectBackoffMaxMs = 1_000;
    private int requestTimeoutMs = 30_000;
    private int maxInFlightPerConnection = 1;
    private int maxQueuedPerConnection = 100;
    private int maxResponseBytes = 104_857_600;
    private int receiveBufferBytes = -1;
    private SslEngines tls;

    private Builder(String clientId) {
      this.clientId = clientId;
    }

    public Builder clientId(String id) {
      this.clientId = id;
      return this;
    }

    public Builder securityProtocol(SecurityProtocol protocol) {
      this.securityProtocol = protocol;
      return this;
    }

    /** {@code socket.connection.setup.timeout.ms} and {@code .max.ms}. */
    public Builder connectionSetupTimeout(long initialMs, long maxMs) {
      this.connectionSetupTimeoutMs = initialMs;
      this.connectionSetupTimeoutMaxMs = maxMs;
      return this;
    }

    /** {@code reconnect.backoff.ms} and {@code reconnect.backoff.max.ms}. */
    public Builder reconnectBackoff(long initialMs, long maxMs) {
      this.reconnectBackoffMs = initialMs;
      this.reconnectBackoffMaxMs = maxMs;
      return this;
    }

    public Builder requestTimeoutMs(int ms) {
      this.requestTimeoutMs = ms;
      return this;
    }

    /** Requests in flight, and waiting, per connection. */
    public Builder bounds(int maxInFlight, int maxQueued) {
      this.maxInFlightPerConnection = maxInFlight;
      this.maxQueuedPerConnection = maxQueued;
      return this;
    }

    public Builder maxResponseBytes(int bytes) {
      this.maxResponseBytes = bytes;
      return this;
    }

    /** The mechanism and credentials for a SASL_* peer listener. */
    public Builder sasl(SaslClientCredentials credentials) {
      this.sasl = credentials;
      return this;
    }

    public Builder receiveBufferBytes(int bytes) {
      this.receiveBufferBytes = bytes;
      return this;
    }

    /** The client side of TLS, for SSL. */
    public Builder tls(SslEngines engines) {
      this.tls = engines;
      return this;
    }

    public InterNodeClientConfig build() {
      return new InterNodeClientConfig(
          clientId,
          securityProtocol,
          connectionSetupTimeoutMs,
          connectionSetupTimeoutMaxMs,
          reconnectBackoffMs,
          reconnectBackoffMaxMs,
          requestTimeoutMs,
          maxInFlightPerConnection,
          maxQueuedPerConnection,
          maxResponseBytes,
          receiveBufferBytes,
          sasl,
          tls);
    }
  }
}
