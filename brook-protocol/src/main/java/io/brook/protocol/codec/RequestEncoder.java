package io.brook.protocol.codec;

import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Encodes a request frame for the inter-node client: 4-byte length, request header (at the header
 * version the API and version call for), body; see {@link FrameEncoding}.
 */
public final class RequestEncoder {
  private RequestEncoder() {}

  /**
   * @return the frame's parts in wire order; the caller writes all of them or releases them
   */
  public static List<Object> encode(
      ByteBufAllocator allocator,
      ApiKeys apiKey,
      short apiVersion,
      int correlationId,
      String clientId,
      ApiMessage body) {
    RequestHeaderData header =
        new RequestHeaderData()
            .setRequestApiKey(apiKey.id)
            .setRequestApiVersion(apiVersion)
            .setCorrelationId(correlationId)
            .setClientId(clientId);
    return FrameEncoding.encode(
        allocator, header, apiKey.requestHeaderVersion(apiVersion), body, apiVersion);
  }
}
