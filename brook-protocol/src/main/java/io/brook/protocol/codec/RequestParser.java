package io.brook.protocol.codec;

import io.brook.protocol.ApiRegistry;
import java.nio.ByteBuffer;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Decodes one request frame (header and body) without Netty. The frame must be a heap buffer the
 * request may keep: decoded bodies such as Produce records are views into it.
 *
 * <p>Outcomes:
 *
 * <ul>
 *   <li>a served API and version: header and body decoded, the body must fill the frame exactly;
 *   <li>ApiVersions at an unknown version: not decoded, answered at v0 with UNSUPPORTED_VERSION;
 *   <li>another API not served at that version (or not at all): kafka-clients parses the body and
 *       builds the API's error response with UNSUPPORTED_VERSION;
 *   <li>anything else (unparsable header, unknown API key, body that does not decode or leaves
 *       trailing bytes, a version kafka-clients does not know): {@link MalformedRequestException}.
 * </ul>
 */
public final class RequestParser {
  private final ApiRegistry registry;

  public RequestParser(ApiRegistry registry) {
    this.registry = registry;
  }

  /**
   * @param frame the frame without its length prefix, position at the header's start
   * @param receivedNanos when the frame was read, for {@link DecodedRequest#receivedNanos()}
   */
  public DecodedRequest parse(ByteBuffer frame, long receivedNanos) {
    RequestHeader header = parseHeader(frame);
    ApiKeys apiKey = header.apiKey();
    short version = header.apiVersion();
    ByteBuffer bodyBytes = frame.slice();
    if (registry.isSupported(apiKey, version)) {
      return new DecodedRequest.Supported(
          header, parseBody(apiKey, version, bodyBytes), bodyBytes, receivedNanos);
    }
    if (apiKey == ApiKeys.API_VERSIONS) {
      return new DecodedRequest.UnsupportedApiVersions(header, receivedNanos);
    }
    return new DecodedRequest.Unsupported(
        header, unsupportedVersionResponse(header, bodyBytes), receivedNanos);
  }

  private static RequestHeader parseHeader(ByteBuffer frame) {
    try {
      return RequestHeader.parse(frame);
    } catch (RuntimeException e) {
      throw new MalformedRequestException("unparsable request header: " + e.getMessage(), e);
    }
  }

  private static ApiMessage parseBody(ApiKeys apiKey, short version, ByteBuffer bodyBytes) {
    ByteBuffer reading = bodyBytes.duplicate();
    ApiMessage body = ApiMessageType.fromApiKey(apiKey.id).newRequest();
    try {
      body.read(new ByteBufferAccessor(reading), version);
    } catch (RuntimeException e) {
      throw new MalformedRequestException(
          "cannot decode " + apiKey + " v" + version + " body: " + e, e);
    }
    if (reading.hasRemaining()) {
      throw new MalformedRequestException(
          reading.remaining() + " trailing bytes after the " + apiKey + " v" + version + " body");
    }
    return body;
  }

  private ApiMessage unsupportedVersionResponse(RequestHeader header, ByteBuffer bodyBytes) {
    ApiKeys apiKey = header.apiKey();
    String served =
        registry
            .handler(apiKey)
            .map(h -> "versions " + h.minVersion() + ".." + h.maxVersion() + " are served")
            .orElse("the API is not served");
    UnsupportedVersionException error =
        new UnsupportedVersionException(
            apiKey.name + " v" + header.apiVersion() + " is not supported; " + served);
    try {
      return ErrorResponses.forError(header, bodyBytes, error)
          .orElseThrow(
              () ->
                  new MalformedRequestException(
                      apiKey
                          + " v"
                          + header.apiVersion()
                          + " is not supported and the request takes no response"));
    } catch (MalformedRequestException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new MalformedRequestException(
          apiKey + " v" + header.apiVersion() + " is not supported and cannot be answered: " + e,
          e);
    }
  }
}
