package io.brook.protocol.codec;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A response ready to encode.
 *
 * @param correlationId the request's correlation id
 * @param headerVersion response header version (0 or 1)
 * @param body the {@code *ResponseData}
 * @param apiVersion the version to write the body at
 */
public record OutboundResponse(
    int correlationId, short headerVersion, ApiMessage body, short apiVersion) {

  /**
   * The response to {@code request}, at the request's version.
   *
   * @throws IllegalArgumentException if {@code body} belongs to another API
   */
  public static OutboundResponse to(RequestHeader request, ApiMessage body) {
    ApiKeys apiKey = request.apiKey();
    if (body.apiKey() != apiKey.id) {
      throw new IllegalArgumentException(
          body.getClass().getSimpleName() + " does not answer a " + apiKey + " request");
    }
    short version = request.apiVersion();
    return new OutboundResponse(
        request.correlationId(), apiKey.responseHeaderVersion(version), body, version);
  }

  /**
   * An ApiVersions response at version 0 with header v0: the answer to an ApiVersions request of a
   * version the broker does not know, which the client can always read.
   */
  public static OutboundResponse apiVersionsV0(int correlationId, ApiVersionsResponseData body) {
    return new OutboundResponse(correlationId, (short) 0, body, (short) 0);
  }
}
