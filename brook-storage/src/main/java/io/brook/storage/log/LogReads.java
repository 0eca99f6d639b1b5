package io.brook.storage.log;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.segment.FileSlice;
import io.brook.storage.segment.LogSegment;
import java.util.Map;
import java.util.NavigableMap;
import org.apache.kafka.common.TopicPartition;

/** The segment walk behind {@link PartitionLog#read}. */
final class LogReads {
  private LogReads() {}

  /** A read's start position and the file range found there. */
  record Found(LogOffsetMetadata at, FileSlice slice) {}

  /** The log's offsets as one read saw them (each read once, as they move concurrently). */
  record Bounds(long logStartOffset, LogOffsetMetadata hw, LogOffsetMetadata end) {}

  /** What {@link PartitionLog#read} was asked for. */
  record Request(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {}

  /** The body of {@link PartitionLog#read}. */
  static LogReadResult read(
      NavigableMap<Long, LogSegment> segments, TopicPartition tp, Bounds b, Request r) {
    long endOffset = b.end().messageOffset();
    long hwOffset = b.hw().messageOffset();
    if (r.startOffset() < b.logStartOffset() || r.startOffset() > endOffset) {
      throw new StorageException(
          StorageError.OFFSET_OUT_OF_RANGE,
          String.format(
              "offset %d is outside [%d, %d] of %s",
              r.startOffset(), b.logStartOffset(), endOffset, tp));
    }
    LogOffsetMetadata bound = LogPositions.upperBound(segments, r.maxOffset(), b.end(), b.hw());
    if (r.startOffset() >= bound.messageOffset()) {
      LogOffsetMetadata at =
          r.startOffset() == endOffset ? b.end() : LogOffsetMetadata.unresolved(r.startOffset());
      return new LogReadResult(at, FileSlice.EMPTY, hwOffset, b.logStartOffset(), endOffset);
    }
    Found found = read(segments, r.startOffset(), r.maxBytes(), bound, r.minOneBatch());
    if (found == null) {
      return new LogReadResult(
          LogOffsetMetadata.unresolved(r.startOffset()),
          FileSlice.EMPTY,
          hwOffset,
          b.logStartOffset(),
          endOffset);
    }
    return new LogReadResult(found.at(), found.slice(), hwOffset, b.logStartOffset(), endOffset);
  }

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
