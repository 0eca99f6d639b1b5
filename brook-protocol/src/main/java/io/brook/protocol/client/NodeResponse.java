package io.brook.protocol.client;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A response from a peer node.
 *
 * @param apiKey the request's API
 * @param apiVersion the version the request was sent and the response parsed at
 * @param data the {@code *ResponseData}; record fields are views into a heap buffer owned by it
 */
public record NodeResponse(ApiKeys apiKey, short apiVersion, ApiMessage data) {
  /** The body as the API's response class. */
  public <T extends ApiMessage> T body(Class<T> type) {
    return type.cast(data);
  }
}
