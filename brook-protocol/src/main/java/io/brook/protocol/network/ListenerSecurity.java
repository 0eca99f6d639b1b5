package io.brook.protocol.network;

import io.brook.protocol.sasl.SaslListenerConfig;
import io.netty.channel.socket.SocketChannel;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * What one listener puts in front of the Kafka protocol on each accepted connection: nothing for
 * PLAINTEXT, an {@code SslHandler} for SSL ({@code io.brook.protocol.tls.TlsListenerSecurity}), an
 * SASL authentication ({@link #sasl()}). TLS handlers are added at the front of the pipeline,
 * before the framing; SASL works on whole requests, so its stage goes after the framing (and after
 * TLS: SASL_SSL). Whoever establishes the peer's identity records it with {@link
 * ConnectionPrincipal#set}; SASL's identity replaces the one TLS set.
 */
public interface ListenerSecurity {
  /** PLAINTEXT: no handlers, the principal stays {@link KafkaPrincipal#ANONYMOUS}. */
  ListenerSecurity PLAINTEXT = channel -> {};

  /**
   * Adds this listener's security handlers to a new connection's (still empty) pipeline; runs on
   * the connection's event loop and must not block.
   */
  void install(SocketChannel channel);

  /** How this listener authenticates with SASL (SASL_PLAINTEXT, SASL_SSL), or null. */
  default SaslListenerConfig sasl() {
    return null;
  }

  /** This security with SASL authentication ({@code sasl}) above it. */
  default ListenerSecurity withSasl(SaslListenerConfig sasl) {
    ListenerSecurity below = this;
    return new ListenerSecurity() {
      @Override
      public void install(SocketChannel channel) {
        below.install(channel);
      }

      @Override
      public SaslListenerConfig sasl() {
        return sasl;
      }
    };
  }
}
