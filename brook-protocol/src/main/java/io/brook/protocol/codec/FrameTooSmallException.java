package io.brook.protocol.codec;

/** A frame's length prefix is negative or too small to hold a request header. */
public final class FrameTooSmallException extends FrameLengthException {
  private static final long serialVersionUID = 1L;

  private final int min;

  public FrameTooSmallException(int min, int received) {
    super("frame of " + received + " bytes is below the smallest request of " + min, received);
    this.min = min;
  }

  public int min() {
    return min;
  }
}
