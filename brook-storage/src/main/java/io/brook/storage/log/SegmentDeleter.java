package io.brook.storage.log;

import io.brook.storage.segment.LogSegment;
import io.brook.storage.segment.SegmentFiles;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asynchronous segment deletion, as Kafka's {@code file.delete.delay.ms}: a segment leaving the log
 * (retention, DeleteRecords, truncation, or replacement by the cleaner) is first renamed to {@code
 * *.deleted} and only closed and unlinked once the delay has passed.
 *
 * <p>Why: a fetch hands a {@code FileChannel} range to {@code sendfile} after the log's lock is
 * released. Closing the channel at once would fail a zero-copy send already under way; keeping it
 * open for the delay lets every reader that found the segment before it left finish. The rename
 * makes sure a crash in between leaves nothing that load would mistake for live data: {@code
 * *.deleted} files are removed at load.
 *
 * <p>Thread-safety: the queue is guarded by this object's monitor, and only {@link #deleteDue}'s
 * first check reads without it (the count of waiting segments, volatile); the queue is in deadline
 * order because every segment of one log is scheduled with that log's current delay at the time it
 * leaves, and a later shorter delay just waits behind an earlier longer one (files linger a little,
 * never vanish early).
 */
final class SegmentDeleter {
  private static final Logger log = LoggerFactory.getLogger(SegmentDeleter.class);

  private record Pending(LogSegment segment, long dueMs) {}

  private final TopicPartition topicPartition;
  private final Time time;
  private final Deque<Pending> pending = new ArrayDeque<>();

  /**
   * {@code pending.size()}, readable without the lock: the periodic sweep asks every log of the
   * broker each second (24,000 at a time on a large node), and almost none has anything waiting.
   */
  private volatile int waiting;

  SegmentDeleter(TopicPartition topicPartition, Time time) {
    this.topicPartition = topicPartition;
    this.time = time;
  }

  /**
   * Renames the segments' files to {@code *.deleted} now and schedules their removal after {@code
   * delayMs}. The caller has already taken them out of the log's segment map.
   */
  synchronized void scheduleDelete(List<LogSegment> segments, long delayMs) throws IOException {
    long due = time.milliseconds() + delayMs;
    try {
      for (LogSegment segment : segments) {
        segment.changeFileSuffixes("", SegmentFiles.DELETED_SUFFIX);
        pending.addLast(new Pending(segment, due));
        log.debug(
            "Scheduled segment deletion topicPartition={} baseOffset={} delayMs={}",
            topicPartition,
            segment.baseOffset(),
            delayMs);
      }
    } finally {
      // Also when a rename fails part-way: the segments queued before it must still be deleted.
      waiting = pending.size();
    }
    if (delayMs == 0) {
      deleteDue();
    }
  }

  /** Closes and unlinks the segments whose delay has passed; returns how many. */
  int deleteDue() {
    if (waiting == 0) {
      return 0;
    }
    synchronized (this) {
      long now = time.milliseconds();
      int deleted = 0;
      while (!pending.isEmpty() && pending.peekFirst().dueMs() <= now) {
        deleteQuietly(pending.pollFirst().segment());
        deleted++;
      }
      waiting = pending.size();
      return deleted;
    }
  }

  /** Closes and unlinks every pending segment at once (the log is closing or being deleted). */
  synchronized void deleteAll() {
    while (!pending.isEmpty()) {
      deleteQuietly(pending.pollFirst().segment());
    }
    waiting = 0;
  }

  /** The segments waiting for their delay (for tests). */
  synchronized List<LogSegment> pending() {
    List<LogSegment> out = new ArrayList<>(pending.size());
    for (Pending p : pending) {
      out.add(p.segment());
    }
    return out;
  }

  private void deleteQuietly(LogSegment segment) {
    try {
      segment.deleteIfExists();
    } catch (IOException e) {
      // Load removes any *.deleted file left behind, so a failure here only costs disk space.
      log.warn(
          "Deleting segment files failed topicPartition={} baseOffset={}",
          topicPartition,
          segment.baseOffset(),
          e);
    }
  }
}
