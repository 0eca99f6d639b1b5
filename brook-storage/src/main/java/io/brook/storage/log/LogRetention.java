package io.brook.storage.log;

import io.brook.storage.segment.LogSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which whole segments retention removes, as Kafka decides it: first those entirely below the log
 * start offset (DeleteRecords), then, for {@code cleanup.policy} with {@code delete}, the oldest
 * segments while the partition is larger than {@code retention.bytes}, and the segments whose
 * newest record is older than {@code retention.ms}.
 *
 * <p>Every rule walks from the oldest segment and stops at the first segment it keeps, so retention
 * never leaves a hole. A segment is only deletable once all of it is below the high watermark, so
 * an uncommitted record is never removed by retention. The active segment counts too: on a quiet
 * topic whose newest record has expired the log rolls and deletes it (the caller rolls first), and
 * only an empty active segment is never deleted.
 */
public final class LogRetention {
  private static final Logger log = LoggerFactory.getLogger(LogRetention.class);

  private LogRetention() {}

  /**
   * What the rules need to know about the log, read under its lock. {@code remoteCopiedEnd} is the
   * offset below which the log's segments are safely in remote storage; it only matters for a topic
   * with {@code remote.storage.enable}.
   */
  record State(
      long logStartOffset,
      long highWatermark,
      long logEndOffset,
      long nowMs,
      long remoteCopiedEnd) {
    State(long logStartOffset, long highWatermark, long logEndOffset, long nowMs) {
      this(logStartOffset, highWatermark, logEndOffset, nowMs, -1L);
    }
  }

  /**
   * The segments to delete, oldest first; with {@code startOnly} only those below the log start
   * offset (DeleteRecords applies its own move at once, time and size wait for the next check).
   */
  static List<LogSegment> deletable(
      NavigableMap<Long, LogSegment> segments, LogConfig config, State state, boolean startOnly) {
    List<LogSegment> out = new ArrayList<>();
    long bytes = totalBytes(segments);
    // A tiered log keeps local.retention.* on disk, and never deletes what is not yet copied: the
    // total retention.* applies to the remote copy (KIP-405).
    boolean tiered = config.remoteStorageEnable();
    long retentionBytes = tiered ? config.effectiveLocalRetentionBytes() : config.retentionBytes();
    long retentionMs = tiered ? config.effectiveLocalRetentionMs() : config.retentionMs();
    // Local retention of a tiered log also applies under cleanup.policy=compact alone: what it
    // deletes is already remote, where the total retention (here none) is applied.
    boolean deletes = config.deletes() || tiered;
    for (Map.Entry<Long, LogSegment> entry : segments.entrySet()) {
      LogSegment segment = entry.getValue();
      Map.Entry<Long, LogSegment> next = segments.higherEntry(entry.getKey());
      long upperBound = next == null ? state.logEndOffset() : next.getKey();
      boolean lastAndEmpty = next == null && segment.sizeInBytes() == 0;
      if (lastAndEmpty
          || state.highWatermark() < upperBound
          || (tiered && state.remoteCopiedEnd() < upperBound)) {
        break;
      }
      boolean belowStart = next != null && next.getKey() <= state.logStartOffset();
      boolean tooBig =
          !startOnly
              && deletes
              && retentionBytes >= 0
              && bytes - segment.sizeInBytes() >= retentionBytes;
      boolean tooOld =
          !startOnly
              && deletes
              && retentionMs >= 0
              && state.nowMs() - largestTimestamp(segment) > retentionMs;
      if (!belowStart && !tooBig && !tooOld) {
        break;
      }
      out.add(segment);
      bytes -= segment.sizeInBytes();
    }
    return out;
  }

  /**
   * Takes {@code doomed} out of the segment map and hands them to the deleter (renamed now, removed
   * after {@code file.delete.delay.ms}); returns the base offset of the first segment left.
   */
  static long remove(
      NavigableMap<Long, LogSegment> segments,
      List<LogSegment> doomed,
      SegmentDeleter deleter,
      LogConfig config,
      TopicPartition tp)
      throws IOException {
    for (LogSegment segment : doomed) {
      segments.remove(segment.baseOffset());
    }
    deleter.scheduleDelete(doomed, config.fileDeleteDelayMs());
    long firstLeft = segments.firstKey();
    log.info(
        "Deleted segments past retention topicPartition={} segments={} firstOffsetLeft={}",
        tp,
        doomed.size(),
        firstLeft);
    return firstLeft;
  }

  private static long totalBytes(NavigableMap<Long, LogSegment> segments) {
    long total = 0;
    for (LogSegment segment : segments.values()) {
      total += segment.sizeInBytes();
    }
    return total;
  }

  private static long largestTimestamp(LogSegment segment) {
    try {
      return segment.largestTimestamp();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * How often logs with {@code retention.deadline.enable} are checked, and the longest span of
   * record time one of their segments may cover: half the retention check interval each, so that a
   * record waits at most half an interval for its segment's newest record to expire and at most
   * half an interval more for the next check. Together: deleted within {@code retention.ms} plus
   * one check interval of its timestamp.
   */
  public static long deadlineCheckIntervalMs(long retentionCheckIntervalMs) {
    return Math.max(1, retentionCheckIntervalMs / 2);
  }

  /**
   * The {@code segment.ms} the active segment rolls at: {@code segment.ms}, lowered to {@code
   * max.compaction.lag.ms} on compacted logs and, with {@code retention.deadline.enable}, to {@link
   * #deadlineCheckIntervalMs}. Without the deadline a quiet topic keeps a record for up to {@code
   * retention.ms + segment.ms}.
   */
  static long effectiveSegmentMs(LogConfig config, long retentionCheckIntervalMs) {
    long rollMs = config.segmentMs();
    if (config.compacted()) {
      // As Kafka (KIP-354): the cleaner never touches the active segment, so a compacted log
      // rolls by max.compaction.lag.ms too, or a quiet topic could keep old versions forever.
      rollMs = Math.min(rollMs, config.maxCompactionLagMs());
    }
    if (config.retentionDeadlineEnable() && config.deletes() && config.retentionMs() >= 0) {
      rollMs = Math.min(rollMs, deadlineCheckIntervalMs(retentionCheckIntervalMs));
    }
    return Math.max(1, rollMs);
  }
}
