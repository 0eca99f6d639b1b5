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
 * <p>Record bytes are not copied: a request the broker serves keeps the frame (pooled, usually
 * direct, and counted in the request-memory budget), and its decoded body reads its records
 * straight from it, so a produced batch goes from the socket buffer to the segment file without
 * passing through the heap. The connection releases the frame once the response is built, which
 * gives its bytes back to the budget. Only a frame Netty holds in several pieces is copied, into
 * one heap buffer; the request then still keeps the frame so the budget keeps counting it. Frames
 * of requests answered here (unsupported versions, malformed) are released as soon as they are
 * parsed.
 */
@Sharable
public final class RequestDecoder extends MessageToMessageDecoder<RequestFrame> {
  private final RequestParser parser;

  public RequestDecoder(RequestParser parser) {
    super(RequestFrame.class);
    this.parser = parser;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, RequestFrame frame, List<Object> out) {
    long receivedNanos = System.nanoTime();
    ByteBuf content = frame.content();
    ByteBuffer bytes;
    if (content.nioBufferCount() == 1) {
      bytes = content.nioBuffer();
    } else {
      bytes = ByteBuffer.allocate(content.readableBytes());
      content.getBytes(content.readerIndex(), bytes);
      bytes.flip();
    }
    DecodedRequest request = parser.parse(bytes, receivedNanos);
    if (request instanceof DecodedRequest.Supported supported) {
      // MessageToMessageDecoder releases the frame after this returns; the request keeps it.
      request = supported.ownedBy(frame.retain(), frame.size());
    }
    out.add(request);
  }
}
