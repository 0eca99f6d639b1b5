package io.brook.protocol.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Turns each frame from {@link FrameDecoder} into a {@link DecodedRequest}. Stateless, shared by
 * all connections of a listener.
 *
 * <p>The frame is copied once into a heap buffer owned by the request: decoded bodies keep views
 * into their bytes (Produce records) for as long as the handler holds them, independent of Netty's
 * pooled buffer, which is released as soon as this returns. Kafka's socket server does the same
 * copy.
 */
@Sharable
public final class RequestDecoder extends MessageToMessageDecoder<ByteBuf> {
  private final RequestParser parser;

  public RequestDecoder(RequestParser parser) {
    super(ByteBuf.class);
    this.parser = parser;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
    long receivedNanos = System.nanoTime();
    ByteBuffer bytes = ByteBuffer.allocate(frame.readableBytes());
    frame.readBytes(bytes);
    bytes.flip();
    out.add(parser.parse(bytes, receivedNanos));
  }
}
