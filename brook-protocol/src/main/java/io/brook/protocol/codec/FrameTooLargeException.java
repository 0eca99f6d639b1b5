package io.brook.protocol.codec;

/** A frame's length prefix exceeds {@code socket.request.max.bytes}. */
public final class FrameTooLargeException extends FrameLengthException {
  private static final long serialVersionUID = 1L;

  private final int max;

  public FrameTooLargeException(int max, int received) {
    super("frame of " + received + " bytes exceeds socket.request.max.bytes=" + max, received);
    this.max = max;
  }

  public int max() {
    return max;
  }
}
