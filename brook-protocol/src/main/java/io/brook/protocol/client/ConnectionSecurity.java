package io.brook.protocol.client;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The seam where TLS and SASL plug into an outgoing connection: handlers added in front of the
 * framing (an {@code SslHandler}), and a handshake that must finish before ApiVersions is sent (the
 * TLS handshake; SaslHandshake and SaslAuthenticate). PLAINTEXT, SSL ({@link
 * TlsConnectionSecurity}), SASL_PLAINTEXT ({@link SaslClientSecurity}) and SASL_SSL (both, TLS
 * below SASL) exist.
 */
public interface ConnectionSecurity {
  /** Plaintext: nothing in the pipeline, nothing to wait for. */
  ConnectionSecurity PLAINTEXT =
      new ConnectionSecurity() {
        @Override
        public void install(Channel channel, InetSocketAddress peer) {}

        @Override
        public CompletionStage<Void> handshake(Channel channel) {
          return CompletableFuture.completedFuture(null);
        }
      };

  /**
   * The security of {@code config}'s connections.
   *
   * @throws IllegalArgumentException for SSL or SASL_SSL without {@link InterNodeClientConfig#tls()
   *     TLS engines}, SASL_* without {@link InterNodeClientConfig#sasl() credentials}
   */
  static ConnectionSecurity of(InterNodeClientConfig config) {
    SecurityProtocol protocol = config.securityProtocol();
    if (protocol == SecurityProtocol.PLAINTEXT) {
      return PLAINTEXT;
    }
    if (protocol == SecurityProtocol.SSL && config.tls() != null) {
      return new TlsConnectionSecurity(config.tls());
    }
    if (protocol == SecurityProtocol.SASL_PLAINTEXT && config.sasl() != null) {
      return new SaslClientSecurity(config.sasl());
    }
    if (protocol == SecurityProtocol.SASL_SSL && config.sasl() != null && config.tls() != null) {
      return new SaslOverTls(
          new TlsConnectionSecurity(config.tls()), new SaslClientSecurity(config.sasl()));
    }
    throw new IllegalArgumentException(
        "inter-node connections need TLS settings for SSL, SASL credentials for SASL_PLAINTEXT,"
            + " both for SASL_SSL; not given for "
            + protocol);
  }

  /**
   * Adds this protocol's handlers at the front of a new connection's pipeline.
   *
   * @param peer where the connection goes; its host string is what the peer's certificate must name
   *     when endpoint identification is on
   */
  void install(Channel channel, InetSocketAddress peer);

  /**
   * Runs once the TCP connection is up, on its event loop; completes (on any thread) when the
   * connection may carry requests, or exceptionally when it may not. Must not block.
   */
  CompletionStage<Void> handshake(Channel channel);
}
