package io.brook.protocol.codec;

/**
 * A frame's 4-byte length prefix is outside what a request can be. Thrown before any of the frame
 * is waited for or buffered; the connection is closed.
 */
public abstract sealed class FrameLengthException extends RuntimeException
    permits FrameTooLargeException, FrameTooSmallException {
  private static final long serialVersionUID = 1L;

  private final int received;

  FrameLengthException(String message, int received) {
    super(message);
    this.received = received;
  }

  /** The length prefix as read, a signed 32-bit integer. */
  public int received() {
    return received;
  }
}
