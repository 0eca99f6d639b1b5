package io.brook.protocol.client;

import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The seam where TLS and SASL plug into an outgoing connection: handlers added in front of the
 * framing (an {@code SslHandler}), and a handshake that must finish before ApiVersions is sent (the
 * TLS handshake; SaslHandshake and SaslAuthenticate, {@link SaslClientSecurity}).
 */
public interface ConnectionSecurity {
  /** Plaintext: nothing in the pipeline, nothing to wait for. */
  ConnectionSecurity PLAINTEXT =
      new ConnectionSecurity() {
        @Override
        public void install(Channel channel) {}

        @Override
        public CompletionStage<Void> handshake(Channel channel) {
          return CompletableFuture.completedFuture(null);
        }
      };

  /**
   * @throws IllegalArgumentException for a protocol not implemented yet (SSL, SASL_SSL)
   */
  static ConnectionSecurity forProtocol(SecurityProtocol protocol, SaslClientCredentials sasl) {
    if (protocol == SecurityProtocol.PLAINTEXT) {
      return PLAINTEXT;
    }
    if (protocol == SecurityProtocol.SASL_PLAINTEXT) {
      if (sasl == null) {
        throw new IllegalArgumentException("a SASL_PLAINTEXT peer needs SASL credentials");
      }
      return new SaslClientSecurity(sasl);
    }
    throw new IllegalArgumentException(
        "inter-node connections support only PLAINTEXT listeners yet, not " + protocol);
  }

  /** Adds this protocol's handlers at the front of a new connection's pipeline. */
  void install(Channel channel);

  /**
   * Runs once the TCP connection is up, on its event loop; completes (on any thread) when the
   * connection may carry requests, or exceptionally when it may not. Must not block.
   */
  CompletionStage<Void> handshake(Channel channel);
}
