package io.brook.storage.log;

/**
 * An offset together with where it sits on disk, so a reader bounded by it (the high watermark or
 * the log end) can stop at a file position without searching for it.
 *
 * @param messageOffset the offset
 * @param segmentBaseOffset base offset of the segment it falls in
 * @param relativePositionInSegment byte position in that segment's file, or {@link
 *     #UNKNOWN_POSITION} when it has not been resolved
 */
public record LogOffsetMetadata(
    long messageOffset, long segmentBaseOffset, int relativePositionInSegment) {
  public static final int UNKNOWN_POSITION = -1;
  public static final long UNKNOWN_SEGMENT = -1L;

  public static LogOffsetMetadata unresolved(long offset) {
    return new LogOffsetMetadata(offset, UNKNOWN_SEGMENT, UNKNOWN_POSITION);
  }

  public boolean isResolved() {
    return segmentBaseOffset != UNKNOWN_SEGMENT && relativePositionInSegment != UNKNOWN_POSITION;
  }
}
