package io.brook.protocol.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import java.nio.ByteBuffer;

/**
 * Splits a connection's bytes into response frames, each copied once into a heap buffer of exactly
 * its size (as kafka-clients' own network layer reads responses), so parsed record fields are views
 * into memory the garbage collector owns and no pooled buffer outlives the event loop's turn. The
 * size prefix is checked against the bound before the buffer is allocated.
 */
final class ResponseFrameDecoder extends ChannelInboundHandlerAdapter {
  /** A response holds at least its correlation id. */
  static final int MIN_FRAME_BYTES = 4;

  private final int maxFrameBytes;
  private final ByteBuffer sizePrefix = ByteBuffer.allocate(4);
  private ByteBuffer frame;

  ResponseFrameDecoder(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    try {
      while (in.isReadable() && ctx.channel().isActive()) {
        if (frame == null) {
          readPrefix(in);
        } else {
          int n = Math.min(in.readableBytes(), frame.remaining());
          int limit = frame.limit();
          frame.limit(frame.position() + n);
          in.readBytes(frame);
          frame.limit(limit);
        }
        if (frame != null && !frame.hasRemaining()) {
          ByteBuffer done = frame.flip();
          frame = null;
          ctx.fireChannelRead(done);
        }
      }
    } finally {
      in.release();
    }
  }

  private void readPrefix(ByteBuf in) {
    while (sizePrefix.hasRemaining() && in.isReadable()) {
      sizePrefix.put(in.readByte());
    }
    if (sizePrefix.hasRemaining()) {
      return;
    }
    int size = sizePrefix.flip().getInt();
    sizePrefix.clear();
    if (size < MIN_FRAME_BYTES || size > maxFrameBytes) {
      throw new CorruptedFrameException(
          "response size " + size + " outside [" + MIN_FRAME_BYTES + ", " + maxFrameBytes + "]");
    }
    frame = ByteBuffer.allocate(size);
  }
}
