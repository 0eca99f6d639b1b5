package io.brook.protocol.tls;

import io.brook.protocol.network.ConnectionPrincipal;
import io.brook.protocol.network.ListenerSecurity;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS on a listener (SSL, and the TLS under SASL_SSL): each connection gets an {@link SslHandler}
 * with a server engine from the listener's {@link SslEngines}, then a {@link ChunkedWriteHandler}
 * and {@link FileRegionsAsChunks}, so zero-copy fetch responses are read into pooled direct buffers
 * a chunk at a time and encrypted. When the handshake completes, the peer's principal ({@code
 * User:CN=...} from its certificate, or ANONYMOUS without one) goes into {@link
 * ConnectionPrincipal}; a failed handshake closes the connection before any request is read.
 *
 * <p>Pipeline front: {@code tls} → {@code tls-chunks} → {@code tls-file-regions} → {@code
 * tls-principal} → (a SASL stage) → framing.
 */
public final class TlsListenerSecurity implements ListenerSecurity {
  private static final Logger LOG = LoggerFactory.getLogger(TlsListenerSecurity.class);

  private final String listenerName;
  private final SslEngines engines;

  public TlsListenerSecurity(String listenerName, SslEngines engines) {
    this.listenerName = listenerName;
    this.engines = engines;
  }

  @Override
  public void install(SocketChannel channel) {
    InetSocketAddress peer = channel.remoteAddress();
    SSLEngine engine = engines.newServerEngine(peer.getHostString(), peer.getPort());
    SslHandler ssl = new SslHandler(engine);
    channel
        .pipeline()
        .addLast("tls", ssl)
        .addLast("tls-chunks", new ChunkedWriteHandler())
        .addLast("tls-file-regions", FileRegionsAsChunks.INSTANCE)
        .addLast("tls-principal", new PrincipalOnHandshake(ssl, peer));
  }

  /** Records the principal once the handshake is done, then leaves the pipeline. */
  private final class PrincipalOnHandshake extends ChannelInboundHandlerAdapter {
    private final SslHandler ssl;
    private final InetSocketAddress peer;

    PrincipalOnHandshake(SslHandler ssl, InetSocketAddress peer) {
      this.ssl = ssl;
      this.peer = peer;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
      if (event instanceof SslHandshakeCompletionEvent done) {
        if (done.isSuccess()) {
          ConnectionPrincipal.set(
              ctx.channel(),
              engines.principal(ssl.engine().getSession(), peer.getAddress(), listenerName));
          ctx.pipeline().remove(this);
        } else {
          // Kafka logs failed authentications at INFO: a client with the wrong trust or no
          // certificate is an operator's problem to see, not a broker fault.
          // Only the start of the message: a non-TLS client's bytes are dumped into it in hex.
          String error = done.cause().toString();
          LOG.info(
              "TLS handshake failed peer={} listener={} error={}",
              peer,
              listenerName,
              error.length() > 160 ? error.substring(0, 160) + "..." : error);
        }
      }
      super.userEventTriggered(ctx, event);
    }
  }
}
