package io.brook.protocol.client;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;

/**
 * SASL_SSL on an outgoing connection: the TLS handshake first, then the SASL exchange inside the
 * encrypted stream, as Kafka's SASL_SSL channel does.
 */
final class SaslOverTls implements ConnectionSecurity {
  private final TlsConnectionSecurity tls;
  private final SaslClientSecurity sasl;

  SaslOverTls(TlsConnectionSecurity tls, SaslClientSecurity sasl) {
    this.tls = tls;
    this.sasl = sasl;
  }

  @Override
  public void install(Channel channel, InetSocketAddress peer) {
    // Both add their handler at the front: SASL first, so TLS ends up in front of it and SASL
    // reads and writes plaintext frames.
    sasl.install(channel, peer);
    tls.install(channel, peer);
  }

  @Override
  public CompletionStage<Void> handshake(Channel channel) {
    // The TLS handshake future completes on the event loop, so SASL starts there too.
    return tls.handshake(channel).thenCompose(done -> sasl.handshake(channel));
  }
}
