package io.brook.storage.log;

import io.brook.storage.record.RecordLimits;
import io.brook.storage.segment.LogSegment;
import java.util.Collection;
import java.util.Optional;
import org.apache.kafka.common.record.internal.FileRecords;

/**
 * Time-based lookups across a log's segments (ListOffsets by timestamp and max timestamp). The
 * records of the batches they open are read within the log's {@link LogConfig#recordLimits()}.
 */
final class TimestampLookups {
  private TimestampLookups() {}

  /**
   * The first record at or after {@code timestamp} below {@code maxOffset}, searching only segments
   * whose newest record is recent enough.
   */
  static Optional<FileRecords.TimestampAndOffset> offsetForTimestamp(
      Collection<LogSegment> segments,
      long logStartOffset,
      long timestamp,
      long maxOffset,
      RecordLimits limits) {
    for (LogSegment segment : segments) {
      if (segment.maxTimestampSoFar().timestamp() < timestamp) {
        continue;
      }
      Optional<FileRecords.TimestampAndOffset> found =
          segment.findOffsetByTimestamp(timestamp, logStartOffset, limits);
      if (found.isPresent()) {
        return found.get().offset < maxOffset ? found : Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** The record with the largest timestamp, the earliest on ties. */
  static Optional<FileRecords.TimestampAndOffset> maxTimestampRecord(
      Collection<LogSegment> segments, RecordLimits limits) {
    LogSegment best = null;
    for (LogSegment segment : segments) {
      if (best == null
          || segment.maxTimestampSoFar().timestamp() > best.maxTimestampSoFar().timestamp()) {
        best = segment;
      }
    }
    return best == null ? Optional.empty() : best.maxTimestampRecord(limits);
  }
}
