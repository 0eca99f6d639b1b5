package io.brook.protocol.sasl;

import io.brook.protocol.codec.RequestFrame;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The authentication stage of a SASL listener's pipeline, between the frame decoder and the request
 * decoder: lets through only the requests its {@link SaslSession} admits, by the API key at the
 * start of each frame, and closes the connection on anything else — before the request is parsed or
 * dispatched. Until authentication succeeds the frame decoder also refuses frames above {@code
 * sasl.server.max.receive.size} from their length prefix alone. After a v0 handshake it hands the
 * bare SASL tokens to the session. Once the session is authenticated frames pass through untouched,
 * except that a connection whose session has expired (KIP-368) is closed on its next request unless
 * that request is a re-authentication.
 */
public final class SaslGate extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(SaslGate.class);

  private final SaslSession session;
  private final String listenerName;

  public SaslGate(SaslSession session, String listenerName) {
    this.session = session;
    this.listenerName = listenerName;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof RequestFrame frame)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (session.failed()) {
      frame.release();
      return;
    }
    if (session.state() == SaslSession.State.RAW_TOKENS) {
      try {
        session.rawToken(frame.content());
      } finally {
        frame.release();
      }
      return;
    }
    short key = frame.content().getShort(frame.content().readerIndex());
    ApiKeys apiKey = ApiKeys.hasId(key) ? ApiKeys.forId(key) : null;
    if (apiKey == null || !session.admits(apiKey)) {
      frame.release();
      LOG.info(
          "Closing connection peer={} listener={} reason={} apiKey={}",
          ctx.channel().remoteAddress(),
          listenerName,
          session.state() == SaslSession.State.AUTHENTICATED
              ? "session expired without re-authentication"
              : "request not allowed before authentication in state " + session.state(),
          key);
      ctx.close();
      return;
    }
    ctx.fireChannelRead(frame);
  }
}
