package io.brook.protocol.codec;

/**
 * A frame whose request memory was reserved did not arrive whole in time ({@code
 * brook.request.receive.timeout.ms}): the connection is closed so that a client trickling bytes
 * cannot keep that memory from everyone else.
 */
public final class FrameReceiveTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int frameBytes;
  private final int receivedBytes;
  private final long timeoutMs;

  public FrameReceiveTimeoutException(int frameBytes, int receivedBytes, long timeoutMs) {
    super(
        "frame of "
            + frameBytes
            + " bytes not received within brook.request.receive.timeout.ms="
            + timeoutMs
            + " (received "
            + receivedBytes
            + ")");
    this.frameBytes = frameBytes;
    this.receivedBytes = receivedBytes;
    this.timeoutMs = timeoutMs;
  }

  public int frameBytes() {
    return frameBytes;
  }

  public int receivedBytes() {
    return receivedBytes;
  }

  public long timeoutMs() {
    return timeoutMs;
  }
}
