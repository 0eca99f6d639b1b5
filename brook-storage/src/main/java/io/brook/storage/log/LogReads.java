package io.brook.storage.log;

import io.brook.storage.segment.FileSlice;
import io.brook.storage.segment.LogSegment;
import java.util.Map;
import java.util.NavigableMap;

/** The segment walk behind {@link PartitionLog#read}. */
final class LogReads {
  private LogReads() {}

  /** A read's start position and the file range found there. */
  record Found(LogOffsetMetadata at, FileSlice slice) {}

  /**
   * Reads from the segment holding {@code startOffset} (or the next one holding a later offset, as
   * after compaction), never past {@code bound}; null if no batch at or after the offset exists
   * below the bound.
   */
  static Found read(
      NavigableMap<Long, LogSegment> segments,
      long startOffset,
      int maxBytes,
      LogOffsetMetadata bound,
      boolean minOneBatch) {
    Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
    while (entry != null && entry.getKey() <= bound.segmentBaseOffset()) {
      LogSegment segment = entry.getValue();
      long maxPosition =
          segment.baseOffset() == bound.segmentBaseOffset()
              ? bound.relativePositionInSegment()
              : segment.sizeInBytes();
      FileSlice slice = segment.read(startOffset, maxBytes, maxPosition, minOneBatch);
      if (slice != null) {
        return new Found(
            new LogOffsetMetadata(startOffset, segment.baseOffset(), slice.position()), slice);
      }
      entry = segments.higherEntry(entry.getKey());
    }
    return null;
  }
}
