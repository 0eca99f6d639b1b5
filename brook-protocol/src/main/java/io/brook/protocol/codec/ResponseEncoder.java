package io.brook.protocol.codec;

import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.apache.kafka.common.message.ResponseHeaderData;

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
    ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(response.correlationId());
    return FrameEncoding.encode(
        allocator, header, response.headerVersion(), response.body(), response.apiVersion());
  }
}
