package io.brook.storage.cleaner;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.LogSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The part of a log one cleaning pass may look at: from the first dirty offset (where the previous
 * pass stopped) up to the first uncleanable offset, the smallest of
 *
 * <ul>
 *   <li>the active segment's base offset: the active segment is never cleaned;
 *   <li>the base offset of the segment holding the last stable offset (at most the high watermark):
 *       readers' upper bounds point into it by file position, which a rewrite would move, and, as
 *       in Kafka, nothing of a transaction still open is compacted;
 *   <li>the base offset of the first segment holding a record younger than {@code
 *       min.compaction.lag.ms}: consumers are promised to see every such record.
 * </ul>
 *
 * <p>{@code cleanBytes} are the bytes below the first dirty offset, {@code dirtyBytes} those from
 * it to the uncleanable offset, counted in whole segments as Kafka does.
 */
record CleanableRange(
    long firstDirtyOffset,
    long uncleanableOffset,
    long cleanBytes,
    long dirtyBytes,
    long firstDirtyTimestamp) {

  /** The dirty share of the cleanable bytes, compared with {@code min.cleanable.dirty.ratio}. */
  double dirtyRatio() {
    long total = cleanBytes + dirtyBytes;
    return total == 0 ? 0 : (double) dirtyBytes / total;
  }

  /** The range of {@code log} given its segments, or null if no segment can be cleaned. */
  static CleanableRange of(
      PartitionLog log, List<LogSegment> segments, long checkpointed, long nowMs) {
    LogConfig config = log.config();
    long uncleanable =
        Math.min(
            segments.get(segments.size() - 1).baseOffset(),
            floorBase(segments, log.lastStableOffset()));
    long firstDirty = Math.min(Math.max(checkpointed, log.logStartOffset()), uncleanable);
    long clean = 0;
    long dirty = 0;
    long firstDirtyTimestamp = -1;
    for (int i = 0; i < segments.size() - 1; i++) {
      LogSegment segment = segments.get(i);
      long nextBase = segments.get(i + 1).baseOffset();
      if (segment.baseOffset() >= uncleanable) {
        break;
      }
      if (nextBase <= firstDirty) {
        clean += segment.sizeInBytes();
        continue;
      }
      if (config.minCompactionLagMs() > 0
          && nowMs - largestTimestamp(segment) < config.minCompactionLagMs()) {
        uncleanable = Math.max(firstDirty, segment.baseOffset());
        break;
      }
      if (firstDirtyTimestamp < 0) {
        firstDirtyTimestamp = segment.firstBatchTimestamp();
      }
      dirty += segment.sizeInBytes();
    }
    if (uncleanable <= segments.get(0).baseOffset()) {
      return null;
    }
    return new CleanableRange(firstDirty, uncleanable, clean, dirty, firstDirtyTimestamp);
  }

  private static long floorBase(List<LogSegment> segments, long offset) {
    long base = segments.get(0).baseOffset();
    for (LogSegment segment : segments) {
      if (segment.baseOffset() <= offset) {
        base = segment.baseOffset();
      }
    }
    return base;
  }

  private static long largestTimestamp(LogSegment segment) {
    try {
      return segment.largestTimestamp();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The segments below {@code endOffset}, in groups of consecutive segments that together fit in
   * {@code segment.bytes} and whose offsets fit in 32 bits relative to the group's base (the
   * index's limit); a group may be a single larger segment. Empty groups are left alone.
   */
  static List<List<LogSegment>> groups(
      List<LogSegment> segments, long endOffset, LogConfig config) {
    List<List<LogSegment>> groups = new ArrayList<>();
    List<LogSegment> current = new ArrayList<>();
    long bytes = 0;
    for (int i = 0; i < segments.size() - 1; i++) {
      LogSegment segment = segments.get(i);
      if (segment.baseOffset() >= endOffset) {
        break;
      }
      long end = segments.get(i + 1).baseOffset() - 1;
      boolean fits =
          !current.isEmpty()
              && bytes + segment.sizeInBytes() <= config.segmentBytes()
              && end - current.get(0).baseOffset() <= Integer.MAX_VALUE;
      if (!current.isEmpty() && !fits) {
        addIfNotEmpty(groups, current, bytes);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(segment);
      bytes += segment.sizeInBytes();
    }
    addIfNotEmpty(groups, current, bytes);
    return groups;
  }

  private static void addIfNotEmpty(
      List<List<LogSegment>> groups, List<LogSegment> group, long bytes) {
    if (!group.isEmpty() && bytes > 0) {
      groups.add(group);
    }
  }
}
