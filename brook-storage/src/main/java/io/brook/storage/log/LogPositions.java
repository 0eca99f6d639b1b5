package io.brook.storage.log;

import io.brook.storage.segment.LogSegment;
import java.util.Map;
import java.util.NavigableMap;
import org.apache.kafka.common.record.internal.FileRecords;

/** Turning offsets into positions on disk, for readers' upper bounds. */
final class LogPositions {
  private LogPositions() {}

  /**
   * The bound a read stops at: the log end, the high watermark (already resolved), or any other
   * offset resolved on the spot (the last stable offset, for example).
   */
  static LogOffsetMetadata upperBound(
      NavigableMap<Long, LogSegment> segments,
      long maxOffset,
      LogOffsetMetadata end,
      LogOffsetMetadata hw) {
    if (maxOffset >= end.messageOffset()) {
      return end;
    }
    if (maxOffset == hw.messageOffset() && hw.isResolved()) {
      return hw;
    }
    return resolve(segments, end, maxOffset);
  }

  /** Where {@code offset} sits on disk: the start of the batch holding it, or the log end. */
  static LogOffsetMetadata resolve(
      NavigableMap<Long, LogSegment> segments, LogOffsetMetadata end, long offset) {
    if (offset >= end.messageOffset()) {
      return end;
    }
    Map.Entry<Long, LogSegment> entry = segments.floorEntry(offset);
    if (entry == null) {
      entry = segments.firstEntry();
    }
    LogSegment segment = entry.getValue();
    FileRecords.LogOffsetPosition position = segment.translateOffset(offset, 0);
    int at = position == null ? segment.sizeInBytes() : position.position;
    return new LogOffsetMetadata(offset, segment.baseOffset(), at);
  }
}
