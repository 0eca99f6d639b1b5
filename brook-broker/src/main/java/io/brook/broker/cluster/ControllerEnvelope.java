package io.brook.broker.cluster;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Kafka request and response messages as the bytes of a controller-channel call, like Kafka's
 * {@code Envelope}: {@code apiKey:int16, apiVersion:int16, body} for a request, and the response
 * body at the same version for its answer. The bodies are Kafka's own wire format, written and read
 * by kafka-clients' generated classes.
 */
public final class ControllerEnvelope {
  /** A decoded request. */
  public record Request(ApiKeys apiKey, short version, ApiMessage body, ByteBuffer bodyBytes) {}

  private ControllerEnvelope() {}

  public static byte[] encodeRequest(ApiKeys apiKey, short version, ApiMessage body) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int size = body.size(cache, version);
    ByteBuffer buffer = ByteBuffer.allocate(4 + size);
    buffer.putShort(apiKey.id).putShort(version);
    body.write(new ByteBufferAccessor(buffer), cache, version);
    return buffer.array();
  }

  public static Request decodeRequest(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    ApiKeys apiKey = ApiKeys.forId(buffer.getShort());
    short version = buffer.getShort();
    ByteBuffer bodyBytes = buffer.slice();
    ApiMessage body = ApiMessageType.fromApiKey(apiKey.id).newRequest();
    body.read(new ByteBufferAccessor(bodyBytes.duplicate()), version);
    return new Request(apiKey, version, body, bodyBytes);
  }

  public static byte[] encodeResponse(ApiMessage response, short version) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int size = response.size(cache, version);
    ByteBuffer buffer = ByteBuffer.allocate(size);
    response.write(new ByteBufferAccessor(buffer), cache, version);
    return buffer.array();
  }

  public static ApiMessage decodeResponse(ApiKeys apiKey, short version, byte[] bytes) {
    ApiMessage response = ApiMessageType.fromApiKey(apiKey.id).newResponse();
    response.read(new ByteBufferAccessor(ByteBuffer.wrap(bytes)), version);
    return response;
  }
}
