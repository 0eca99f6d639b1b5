package io.brook.protocol.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into request frames: a 4-byte big-endian length, then that many bytes.
 * Emits each frame as one retained slice (the next handler releases it).
 *
 * <p>Distrusts its input: the length prefix is checked against {@code socket.request.max.bytes} and
 * against the smallest possible request as soon as its 4 bytes arrive, before waiting for or
 * buffering the frame; a bad length throws a {@link FrameLengthException} and every later byte is
 * discarded, so one refusal yields one exception.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);

  /** Size of the length prefix: an INT32. */
  public static final int LENGTH_FIELD_BYTES = 4;

  /**
   * The smallest request frame: a request header v1 with a null client id, i.e. api_key INT16 (2) +
   * api_version INT16 (2) + correlation_id INT32 (4) + client_id NULLABLE_STRING length INT16 (2),
   * with an empty body. Header v0 (no client id) was only used by ControlledShutdown v0, which
   * kafka-clients 4.x no longer knows; header v2 adds a tagged-field count and is larger.
   */
  public static final int MIN_FRAME_BYTES = 10;

  private final int maxFrameBytes;
  private boolean refused;

  /**
   * @param maxFrameBytes {@code socket.request.max.bytes}
   */
  public FrameDecoder(int maxFrameBytes) {
    if (maxFrameBytes < MIN_FRAME_BYTES) {
      throw new IllegalArgumentException(
          "maxFrameBytes " + maxFrameBytes + " is below the smallest request " + MIN_FRAME_BYTES);
    }
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (refused) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (in.readableBytes() < LENGTH_FIELD_BYTES) {
      return;
    }
    int frameBytes = in.getInt(in.readerIndex());
    if (frameBytes > maxFrameBytes) {
      refuse(in);
      throw new FrameTooLargeException(maxFrameBytes, frameBytes);
    }
    if (frameBytes < MIN_FRAME_BYTES) {
      refuse(in);
      throw new FrameTooSmallException(MIN_FRAME_BYTES, frameBytes);
    }
    if (in.readableBytes() < LENGTH_FIELD_BYTES + frameBytes) {
      return;
    }
    in.skipBytes(LENGTH_FIELD_BYTES);
    out.add(in.readRetainedSlice(frameBytes));
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (!refused && in.isReadable()) {
      decode(ctx, in, out);
    }
    if (!refused && in.isReadable()) {
      LOG.info(
          "Connection closed mid-frame peer={} bufferedBytes={}",
          ctx.channel().remoteAddress(),
          in.readableBytes());
      in.skipBytes(in.readableBytes());
    }
  }

  private void refuse(ByteBuf in) {
    refused = true;
    in.skipBytes(in.readableBytes());
  }
}
