package io.brook.protocol.codec;

import io.netty.util.ReferenceCounted;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

/** One request frame after decoding: what the connection must do with it. */
public sealed interface DecodedRequest {
  RequestHeader header();

  /** {@code System.nanoTime()} when the frame was read off the socket. */
  long receivedNanos();

  /**
   * A request for an API and version this broker serves.
   *
   * @param body the decoded {@code *RequestData}
   * @param bodyBytes the body's bytes (position 0 at the body's start); kept so that a failed
   *     request can be re-parsed into kafka-clients' request class for its generic error response
   */
  record Supported(
      RequestHeader header,
      ApiMessage body,
      ByteBuffer bodyBytes,
      long receivedNanos,
      OwnedBuffer owner)
      implements DecodedRequest {
    Supported(RequestHeader header, ApiMessage body, ByteBuffer bodyBytes, long receivedNanos) {
      this(header, body, bodyBytes, receivedNanos, null);
    }

    /**
     * The same request, whose bytes live in {@code buffer} until {@link #release()}.
     *
     * @param frameBytes the frame's length, counted against the request-memory budget until then
     */
    Supported ownedBy(ReferenceCounted buffer, int frameBytes) {
      return new Supported(
          header, body, bodyBytes, receivedNanos, new OwnedBuffer(buffer, frameBytes));
    }

    /** Bytes of request memory this request holds until {@link #release()}; 0 if none. */
    public int frameBytes() {
      return owner == null ? 0 : owner.bytes;
    }

    /** A view of the body bytes that can be read without disturbing anyone else's position. */
    @Override
    public ByteBuffer bodyBytes() {
      return bodyBytes.duplicate();
    }

    /**
     * Returns the network buffer holding the request's bytes (Produce records point into it) once
     * the response is built or the connection is gone. Idempotent.
     */
    public void release() {
      if (owner != null) {
        owner.release();
      }
    }
  }

  /** A network buffer released exactly once, whoever gets there first. */
  final class OwnedBuffer {
    private final ReferenceCounted buffer;
    private final int bytes;
    private final java.util.concurrent.atomic.AtomicBoolean released =
        new java.util.concurrent.atomic.AtomicBoolean();

    OwnedBuffer(ReferenceCounted buffer, int bytes) {
      this.buffer = buffer;
      this.bytes = bytes;
    }

    void release() {
      if (released.compareAndSet(false, true)) {
        buffer.release();
      }
    }
  }

  /**
   * ApiVersions at a version this broker does not speak. Not decoded: Kafka answers it at version 0
   * with UNSUPPORTED_VERSION and the supported table so the client can pick a version.
   */
  record UnsupportedApiVersions(RequestHeader header, long receivedNanos)
      implements DecodedRequest {}

  /**
   * Another API at a version (or an API) this broker does not serve, whose body kafka-clients could
   * still decode: answered with that API's error response carrying UNSUPPORTED_VERSION.
   *
   * @param errorResponse the {@code *ResponseData} to send at the request's version
   */
  record Unsupported(RequestHeader header, ApiMessage errorResponse, long receivedNanos)
      implements DecodedRequest {}
}
