package io.brook.storage.log;

import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.utils.Time;

/**
 * Kafka's flush policy for one log. By default nothing is fsynced on the append path: durability
 * comes from replicas, and the page cache holds the data. Segments are flushed when they roll and
 * when the log closes; {@code flush.messages} and {@code flush.ms} force earlier flushes. The
 * recovery point is the offset below which everything is known to be on disk, so that recovery
 * after a crash only re-validates what lies above it.
 *
 * <p>Leader epochs are assigned without fsync, and recovery re-derives them only from the batches
 * above the recovery point, so every flush forces the epoch checkpoint before the recovery point
 * moves past any entry it holds.
 */
final class LogFlusher {
  private final ConcurrentNavigableMap<Long, LogSegment> segments;
  private final LeaderEpochCache epochs;
  private final Time time;
  private final ReentrantLock flushLock = new ReentrantLock();
  private final AtomicLong unflushedRecords = new AtomicLong();
  private volatile long recoveryPoint;
  private volatile long lastFlushMs;

  LogFlusher(
      ConcurrentNavigableMap<Long, LogSegment> segments,
      LeaderEpochCache epochs,
      long recoveryPoint,
      Time time) {
    this.segments = segments;
    this.epochs = epochs;
    this.recoveryPoint = recoveryPoint;
    this.time = time;
    this.lastFlushMs = time.milliseconds();
  }

  long recoveryPoint() {
    return recoveryPoint;
  }

  /** Counts appended records; true when {@code flush.messages} says to flush now. */
  boolean recordAppended(int records, LogConfig config) {
    return unflushedRecords.addAndGet(records) >= config.flushMessages();
  }

  /** True when unflushed data is older than {@code flush.ms}. */
  boolean isDue(LogConfig config) {
    return config.flushMs() != Long.MAX_VALUE
        && unflushedRecords.get() > 0
        && time.milliseconds() - lastFlushMs >= config.flushMs();
  }

  /**
   * Forces the epoch checkpoint (if an assign left it unsynced) and every segment holding offsets
   * in [recovery point, offset) to disk, then moves the recovery point to {@code offset}.
   */
  void flushUpTo(long offset) throws IOException {
    flushLock.lock();
    try {
      // Even when the recovery point stays (close, a flush at the log end): a no-op unless dirty.
      epochs.flush();
      long from = recoveryPoint;
      if (offset <= from) {
        return;
      }
      Long firstBase = segments.floorKey(from);
      Map<Long, LogSegment> dirty =
          firstBase == null ? segments.headMap(offset) : segments.subMap(firstBase, offset);
      for (LogSegment segment : dirty.values()) {
        try {
          segment.flush();
        } catch (ClosedChannelException e) {
          if (segments.get(segment.baseOffset()) == segment) {
            throw e;
          }
          // Removed by a truncation while we flushed: nothing left to make durable.
        }
      }
      unflushedRecords.set(0);
      lastFlushMs = time.milliseconds();
      recoveryPoint = Math.max(recoveryPoint, offset);
    } finally {
      flushLock.unlock();
    }
  }

  void truncatedTo(long logEndOffset) {
    flushLock.lock();
    try {
      recoveryPoint = Math.min(recoveryPoint, logEndOffset);
    } finally {
      flushLock.unlock();
    }
  }

  void resetTo(long offset) {
    flushLock.lock();
    try {
      recoveryPoint = offset;
      unflushedRecords.set(0);
    } finally {
      flushLock.unlock();
    }
  }
}
