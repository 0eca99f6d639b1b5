package io.brook.protocol.network;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The one place a connection's authenticated identity lives: a channel attribute, set by the
 * listener's security stage (the TLS handshake's client certificate, a SASL exchange) before the
 * connection's first request is dispatched, and handed to handlers as {@link
 * io.brook.protocol.RequestContext#principal()}. A connection nobody authenticated is {@link
 * KafkaPrincipal#ANONYMOUS}, as in Kafka.
 */
public final class ConnectionPrincipal {
  private static final AttributeKey<KafkaPrincipal> KEY =
      AttributeKey.valueOf(ConnectionPrincipal.class, "principal");

  private ConnectionPrincipal() {}

  /** Records who is at the other end of {@code channel}. */
  public static void set(Channel channel, KafkaPrincipal principal) {
    channel.attr(KEY).set(principal);
  }

  /** Who is at the other end of {@code channel}; ANONYMOUS if nobody authenticated. */
  public static KafkaPrincipal of(Channel channel) {
    KafkaPrincipal principal = channel.attr(KEY).get();
    return principal == null ? KafkaPrincipal.ANONYMOUS : principal;
  }
}
