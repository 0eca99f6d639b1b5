package io.brook.storage.log;

import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.utils.Time;

/**
 * Kafka's flush policy for one log. By default nothing is fsynced on the append path: durability
 * comes from replicas, and the page cache holds the data. Segments are flushed when they roll and
 * when the log closes; {@code flush.messages} and {@code flush.ms} force earlier flushes. The
 * recovery point is the offset below which everything is known to be on disk, so that recovery
 * after a crash only re-validates what lies above it.
 *
 * <p>A flush covers only the offsets below its target, which can be below the log end (the flush of
 * a rolled segment runs after appends to the next one). So the policy is kept in offsets, never
 * reset wholesale: the unflushed count is {@code log end - recovery point} (as Kafka counts it),
 * and the age of unflushed data comes from {@link UnflushedSince} marks that a flush drops only
 * when it covered every offset they stand for.
 *
 * <p>Leader epochs are assigned without fsync, and recovery re-derives them only from the batches
 * above the recovery point, so every flush forces the epoch checkpoint before the recovery point
 * moves past any entry it holds. A flush that moves nothing (a close with everything flushed)
 * forces it only if an entry below the recovery point changed: an entry at the log end, a
 * leadership that has written nothing yet, is cut by the next load anyway.
 */
final class LogFlusher {
  private final ConcurrentNavigableMap<Long, LogSegment> segments;
  private final LeaderEpochCache epochs;
  private final Time time;
  private final LogFlushStats stats;
  private final ReentrantLock flushLock = new ReentrantLock();
  private final UnflushedSince unflushedSince = new UnflushedSince();
  private volatile long recoveryPoint;
  private volatile long appendedEnd;

  LogFlusher(
      ConcurrentNavigableMap<Long, LogSegment> segments,
      LeaderEpochCache epochs,
      long recoveryPoint,
      long logEndOffset,
      Time time,
      LogFlushStats stats) {
    this.segments = segments;
    this.epochs = epochs;
    this.recoveryPoint = recoveryPoint;
    this.appendedEnd = Math.max(recoveryPoint, logEndOffset);
    this.time = time;
    this.stats = stats;
    if (appendedEnd > recoveryPoint) {
      unflushedSince.opened(recoveryPoint, time.milliseconds());
    }
  }

  long recoveryPoint() {
    return recoveryPoint;
  }

  /** Offsets appended but not yet covered by a flush ({@code flush.messages} counts these). */
  long unflushedMessages() {
    return Math.max(0, appendedEnd - recoveryPoint);
  }

  /** Whether an append ending before {@code nextOffset} would have to flush inline. */
  boolean wouldFlush(long nextOffset, LogConfig config) {
    return nextOffset - recoveryPoint >= config.flushMessages();
  }

  /**
   * Records an append of {@code [firstOffset, nextOffset)}; called under the log's lock. True when
   * {@code flush.messages} says to flush now.
   */
  boolean recordAppended(long firstOffset, long nextOffset, LogConfig config) {
    unflushedSince.appended(firstOffset, time);
    appendedEnd = nextOffset;
    return wouldFlush(nextOffset, config);
  }

  /** The active segment rolled at {@code newBase}: its appends get their own age mark. */
  void rolled() {
    unflushedSince.close();
  }

  /** True when some unflushed data is older than {@code flush.ms}. */
  boolean isDue(LogConfig config) {
    if (config.flushMs() == Long.MAX_VALUE || unflushedMessages() == 0) {
      return false;
    }
    long since = unflushedSince.oldestMs();
    return since != Long.MAX_VALUE && time.milliseconds() - since >= config.flushMs();
  }

  /**
   * Forces the epoch checkpoint (if an assign left it unsynced) and every segment holding offsets
   * in [recovery point, offset) to disk, then moves the recovery point to {@code offset}.
   */
  void flushUpTo(long offset) throws IOException {
    flushLock.lock();
    try {
      long from = recoveryPoint;
      if (offset <= from) {
        // Nothing to flush (a close, a flush at the log end): the epochs below the recovery point
        // must still be durable; those at or past it recovery re-derives or loading cuts.
        epochs.flushBelow(from);
        return;
      }
      epochs.flush();
      long started = System.nanoTime();
      // Appends from now on may land above offset: give them a mark of their own.
      unflushedSince.close();
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
      recoveryPoint = Math.max(recoveryPoint, offset);
      unflushedSince.flushedUpTo(recoveryPoint, appendedEnd);
      stats.flushed(System.nanoTime() - started);
    } finally {
      flushLock.unlock();
    }
  }

  void truncatedTo(long logEndOffset) {
    flushLock.lock();
    try {
      recoveryPoint = Math.min(recoveryPoint, logEndOffset);
      appendedEnd = logEndOffset;
      unflushedSince.truncatedTo(logEndOffset);
    } finally {
      flushLock.unlock();
    }
  }

  void resetTo(long offset) {
    flushLock.lock();
    try {
      recoveryPoint = offset;
      appendedEnd = offset;
      unflushedSince.clear();
    } finally {
      flushLock.unlock();
    }
  }

  /**
   * When unflushed data was appended, coarsely: a mark {@code (offset, ms)} is opened by the first
   * append after a flush began or the log rolled and stands for every offset up to the next mark. A
   * flush drops the marks it covered completely; a mark it covered in part stays, so the rest of
   * its data is never taken for younger than it is. Marks are opened at most once per flush or roll
   * and dropped by the next flush, so there are only ever a few. Its own monitor, held for a few
   * field updates, so appends never wait for an fsync here.
   */
  private static final class UnflushedSince {
    private final ArrayDeque<long[]> marks = new ArrayDeque<>();

    /**
     * Read without the monitor on the append path: a stale true only ages data more, never less.
     */
    private volatile boolean open;

    void appended(long offset, Time time) {
      if (open) {
        return;
      }
      synchronized (this) {
        if (!open) {
          opened(offset, time.milliseconds());
        }
      }
    }

    synchronized void opened(long offset, long nowMs) {
      marks.addLast(new long[] {offset, nowMs});
      open = true;
    }

    synchronized void close() {
      open = false;
    }

    synchronized long oldestMs() {
      long[] oldest = marks.peekFirst();
      return oldest == null ? Long.MAX_VALUE : oldest[1];
    }

    /** Drops the marks whose offsets all lie below {@code flushedTo}. */
    synchronized void flushedUpTo(long flushedTo, long appendedEnd) {
      while (!marks.isEmpty()) {
        Iterator<long[]> it = marks.iterator();
        it.next();
        long end = it.hasNext() ? it.next()[0] : appendedEnd;
        if (end > flushedTo) {
          return;
        }
        marks.removeFirst();
      }
      open = false;
    }

    synchronized void truncatedTo(long logEndOffset) {
      while (!marks.isEmpty() && marks.peekLast()[0] >= logEndOffset) {
        marks.removeLast();
      }
      open = false;
    }

    synchronized void clear() {
      marks.clear();
      open = false;
    }
  }
}
