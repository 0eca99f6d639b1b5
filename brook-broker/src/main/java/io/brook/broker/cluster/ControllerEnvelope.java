package io.brook.broker.cluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Kafka request and response messages as the bytes of a controller-channel call, like Kafka's
 * {@code Envelope}: {@code apiKey:int16, apiVersion:int16, origin, body} for a request, and the
 * response body at the same version for its answer. The bodies are Kafka's own wire format, written
 * and read by kafka-clients' generated classes. The origin says on whose behalf the call is made,
 * so the controller authorizes a forwarded request as the broker that received it would, and
 * charges it to the client's quotas: {@code 0:int8} for a node's own call, {@code 1:int8} followed
 * by the client's principal type, name and address, or {@code 2:int8} followed by those and the
 * client id (each {@code length:int16, UTF-8 bytes}).
 */
public final class ControllerEnvelope {
  /** A decoded request. */
  public record Request(
      ApiKeys apiKey, short version, ApiMessage body, ByteBuffer bodyBytes, Origin origin) {}

  /**
   * Who a call is made for: a client, by principal, address and client id, or (all null) the
   * sending node itself.
   */
  public record Origin(KafkaPrincipal principal, String clientHost, String clientId) {
    public static final Origin NODE = new Origin(null, null, null);

    /** A client whose client id is not told (a node that predates it). */
    public Origin(KafkaPrincipal principal, String clientHost) {
      this(principal, clientHost, null);
    }

    public boolean isNode() {
      return principal == null;
    }
  }

  private ControllerEnvelope() {}

  public static byte[] encodeRequest(ApiKeys apiKey, short version, ApiMessage body) {
    return encodeRequest(apiKey, version, body, Origin.NODE);
  }

  public static byte[] encodeRequest(
      ApiKeys apiKey, short version, ApiMessage body, Origin origin) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int size = body.size(cache, version);
    byte[][] strings;
    byte kind;
    if (origin.isNode()) {
      strings = new byte[0][];
      kind = 0;
    } else if (origin.clientId() == null) {
      strings =
          new byte[][] {
            utf8(origin.principal().getPrincipalType()),
            utf8(origin.principal().getName()),
            utf8(origin.clientHost())
          };
      kind = 1;
    } else {
      strings =
          new byte[][] {
            utf8(origin.principal().getPrincipalType()),
            utf8(origin.principal().getName()),
            utf8(origin.clientHost()),
            utf8(origin.clientId())
          };
      kind = 2;
    }
    int originSize = 1;
    for (byte[] string : strings) {
      originSize += 2 + string.length;
    }
    ByteBuffer buffer = ByteBuffer.allocate(4 + originSize + size);
    buffer.putShort(apiKey.id).putShort(version);
    buffer.put(kind);
    for (byte[] string : strings) {
      buffer.putShort((short) string.length).put(string);
    }
    body.write(new ByteBufferAccessor(buffer), cache, version);
    return buffer.array();
  }

  public static Request decodeRequest(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    ApiKeys apiKey = ApiKeys.forId(buffer.getShort());
    short version = buffer.getShort();
    Origin origin = Origin.NODE;
    byte kind = buffer.get();
    if (kind != 0) {
      String type = readUtf8(buffer);
      String name = readUtf8(buffer);
      String host = readUtf8(buffer);
      String clientId = kind == 2 ? readUtf8(buffer) : null;
      origin = new Origin(new KafkaPrincipal(type, name), host, clientId);
    }
    ByteBuffer bodyBytes = buffer.slice();
    ApiMessage body = ApiMessageType.fromApiKey(apiKey.id).newRequest();
    body.read(new ByteBufferAccessor(bodyBytes.duplicate()), version);
    return new Request(apiKey, version, body, bodyBytes, origin);
  }

  private static byte[] utf8(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > Short.MAX_VALUE) {
      throw new IllegalArgumentException("too long for an envelope: " + value.length());
    }
    return bytes;
  }

  private static String readUtf8(ByteBuffer buffer) {
    int length = buffer.getShort();
    if (length < 0 || length > buffer.remaining()) {
      throw new IllegalArgumentException("bad string length " + length + " in an envelope");
    }
    byte[] bytes = new byte[length];
    buffer.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
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
