package io.brook.protocol.network;

import io.netty.channel.socket.SocketChannel;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * What one listener puts in front of the Kafka protocol on each accepted connection: nothing for
 * PLAINTEXT, an {@code SslHandler} for SSL ({@code io.brook.protocol.tls.TlsListenerSecurity}), an
 * authentication stage for SASL. Handlers are added at the front of the pipeline, before the
 * framing; whoever establishes the peer's identity records it with {@link ConnectionPrincipal#set}.
 */
public interface ListenerSecurity {
  /** PLAINTEXT: no handlers, the principal stays {@link KafkaPrincipal#ANONYMOUS}. */
  ListenerSecurity PLAINTEXT = channel -> {};

  /**
   * Adds this listener's security handlers to a new connection's (still empty) pipeline; runs on
   * the connection's event loop and must not block.
   */
  void install(SocketChannel channel);
}
