package io.brook.protocol.client;

import io.brook.protocol.tls.SslEngines;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * TLS on an outgoing connection: an {@link SslHandler} with a client engine for the peer's host
 * (endpoint identification and SNI use it), presenting the node's own certificate when it has a
 * keystore (mutual TLS). The handshake must succeed before ApiVersions is sent.
 */
final class TlsConnectionSecurity implements ConnectionSecurity {
  private static final String HANDLER = "tls";

  private final SslEngines engines;

  TlsConnectionSecurity(SslEngines engines) {
    this.engines = engines;
  }

  @Override
  public void install(Channel channel, InetSocketAddress peer) {
    channel
        .pipeline()
        .addFirst(
            HANDLER, new SslHandler(engines.newClientEngine(peer.getHostString(), peer.getPort())));
  }

  @Override
  public CompletionStage<Void> handshake(Channel channel) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    SslHandler ssl = (SslHandler) channel.pipeline().get(HANDLER);
    if (ssl == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("no TLS handler"));
    }
    ssl.handshakeFuture()
        .addListener(
            f -> {
              if (f.isSuccess()) {
                done.complete(null);
              } else {
                done.completeExceptionally(f.cause());
              }
            });
    return done;
  }
}
