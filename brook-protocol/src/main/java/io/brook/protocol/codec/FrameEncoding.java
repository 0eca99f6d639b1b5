package io.brook.protocol.codec;

import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Encodes one frame, request or response alike: 4-byte length, header, body, with kafka-clients'
 * generated {@code size}/{@code write}. Non-record bytes go into one pooled buffer of exactly the
 * computed size; record fields stay where they are (see {@link ByteBufWritable}).
 */
final class FrameEncoding {
  private FrameEncoding() {}

  /**
   * @return the frame as {@code ByteBuf}s and {@code FileRegion}s in wire order; the caller writes
   *     all of them (which releases them) or releases them
   * @throws IllegalStateException if fewer or more bytes were written than the sizes computed
   *     beforehand (nothing is returned then, and nothing leaks)
   */
  static List<Object> encode(
      ByteBufAllocator allocator,
      Message header,
      short headerVersion,
      ApiMessage body,
      short apiVersion) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int headerBytes = header.size(cache, headerVersion);
    MessageSizeAccumulator bodySize = new MessageSizeAccumulator();
    body.addSize(bodySize, cache, apiVersion);
    int frameBytes = headerBytes + bodySize.totalSize();
    int bufferBytes =
        FrameDecoder.LENGTH_FIELD_BYTES + headerBytes + bodySize.sizeExcludingZeroCopy();

    ByteBufWritable out = new ByteBufWritable(allocator.ioBuffer(bufferBytes));
    try {
      out.writeInt(frameBytes);
      header.write(out, cache, headerVersion);
      body.write(out, cache, apiVersion);
      long expected = (long) FrameDecoder.LENGTH_FIELD_BYTES + frameBytes;
      if (out.bytesWritten() != expected) {
        throw new IllegalStateException(
            "encoded "
                + out.bytesWritten()
                + " bytes of "
                + body.getClass().getSimpleName()
                + " v"
                + apiVersion
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
