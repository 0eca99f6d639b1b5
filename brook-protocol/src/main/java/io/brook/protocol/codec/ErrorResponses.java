package io.brook.protocol.codec;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Generic error responses, built by kafka-clients: every request class knows how to answer itself
 * with an error, per partition or per resource where the API has them. This class is the only place
 * Brook uses kafka-clients' {@code AbstractRequest} / {@code AbstractResponse} wrappers (see {@code
 * docs/adr/0002-protocol-layer.md}); everything else works on the generated {@code *Data} messages.
 */
public final class ErrorResponses {
  private ErrorResponses() {}

  /**
   * The response a request gets when it failed with {@code error}: error codes from {@code
   * Errors.forException(error)}, throttle time 0.
   *
   * @param header the request's header (API key and version)
   * @param body the request's body bytes; read through a duplicate, the caller's position is kept
   * @return the response, or empty for a request that gets no response even when it fails (Produce
   *     with acks=0: Kafka closes the connection instead, so the client notices)
   * @throws RuntimeException if kafka-clients cannot parse the body at that version or has no error
   *     response for it
   */
  public static Optional<ApiMessage> forError(
      RequestHeader header, ByteBuffer body, Throwable error) {
    ByteBuffer reading = body.duplicate();
    AbstractRequest request =
        AbstractRequest.parseRequest(
                header.apiKey(), header.apiVersion(), new ByteBufferAccessor(reading))
            .request;
    if (reading.hasRemaining()) {
      throw new MalformedRequestException(
          reading.remaining() + " trailing bytes after the body of " + header.apiKey());
    }
    AbstractResponse response = request.getErrorResponse(0, error);
    return response == null ? Optional.empty() : Optional.of(response.data());
  }
}
