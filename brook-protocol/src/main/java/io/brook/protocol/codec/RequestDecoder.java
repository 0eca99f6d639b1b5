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
 * <p>Record bytes are not copied: a request the broker serves keeps the frame's (pooled, usually
 * direct) buffer, and its decoded body reads its records straight from it, so a produced batch goes
 * from the socket buffer to the segment file without passing through the heap. The connection
 * releases the buffer once the response is built. Only a frame Netty holds in several pieces is
 * copied, into one heap buffer.
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
    if (frame.nioBufferCount() != 1) {
      ByteBuffer copy = ByteBuffer.allocate(frame.readableBytes());
      frame.readBytes(copy);
      copy.flip();
      out.add(parser.parse(copy, receivedNanos));
      return;
    }
    DecodedRequest request = parser.parse(frame.nioBuffer(), receivedNanos);
    if (request instanceof DecodedRequest.Supported supported) {
      // MessageToMessageDecoder releases the frame after this returns; the request keeps it.
      request = supported.ownedBy(frame.retain());
    }
    out.add(request);
  }
}
