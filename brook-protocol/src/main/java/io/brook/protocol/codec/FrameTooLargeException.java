package io.brook.protocol.codec;

/**
 * A frame's length prefix exceeds {@code socket.request.max.bytes}, or the whole request-memory
 * budget ({@code queued.max.request.bytes}), which it could never fit in.
 */
public final class FrameTooLargeException extends FrameLengthException {
  private static final long serialVersionUID = 1L;

  /** The setting a frame exceeded when it is {@code socket.request.max.bytes}. */
  public static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";

  /** The setting a frame exceeded when it is larger than the whole request-memory budget. */
  public static final String QUEUED_MAX_REQUEST_BYTES = "queued.max.request.bytes";

  private final int max;
  private final String limit;

  public FrameTooLargeException(int max, int received) {
    this(SOCKET_REQUEST_MAX_BYTES, max, received);
  }

  public FrameTooLargeException(String limit, int max, int received) {
    super("frame of " + received + " bytes exceeds " + limit + "=" + max, received);
    this.max = max;
    this.limit = limit;
  }

  public int max() {
    return max;
  }

  /** The name of the setting the frame exceeded. */
  public String limit() {
    return limit;
  }
}
