package io.brook.protocol.codec;

import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Encodes a response frame: 4-byte length, response header, body, with kafka-clients' generated
 * {@code size}/{@code write}. Non-record bytes go into one pooled buffer of exactly the computed
 * size; record fields stay where they are (see {@link ByteBufWritable}).
 */
public final class ResponseEncoder {
  private ResponseEncoder() {}

  /**
   * @return the frame as {@code ByteBuf}s and {@code FileRegion}s in wire order; the caller writes
   *     all of them (which releases them) or releases them
   * @throws IllegalStateException if fewer or more bytes were written than the sizes computed
   *     beforehand (nothing is returned then, and nothing leaks)
   */
  public static List<Object> encode(ByteBufAllocator allocator, OutboundResponse response) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(response.correlationId());
    int headerBytes = header.size(cache, response.headerVersion());
    MessageSizeAccumulator bodySize = new MessageSizeAccumulator();
    response.body().addSize(bodySize, cache, response.apiVersion());
    int frameBytes = headerBytes + bodySize.totalSize();
    int bufferBytes =
        FrameDecoder.LENGTH_FIELD_BYTES + headerBytes + bodySize.sizeExcludingZeroCopy();

    ByteBufWritable out = new ByteBufWritable(allocator.ioBuffer(bufferBytes));
    try {
      out.writeInt(frameBytes);
      header.write(out, cache, response.headerVersion());
      response.body().write(out, cache, response.apiVersion());
      long expected = (long) FrameDecoder.LENGTH_FIELD_BYTES + frameBytes;
      if (out.bytesWritten() != expected) {
        throw new IllegalStateException(
            "encoded "
                + out.bytesWritten()
                + " bytes of "
                + response.body().getClass().getSimpleName()
                + " v"
                + response.apiVersion()
                + " but its computed size is "
                + expected);
      }
      return out.finish();
    } catch (RuntimeException e) {
      out.discard();
      throw e;
    }
  }
}
