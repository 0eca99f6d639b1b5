package io.brook.storage.cleaner;

import io.brook.storage.LogDirFailureChannel;
import io.brook.storage.StorageException;
import io.brook.storage.checkpoint.OffsetCheckpointFile;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.LogSegment;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log cleaner: {@code log.cleaner.threads} threads that repeatedly pick the compacted log most
 * in need of cleaning and run a {@link Cleaner} pass over it, then record how far it is clean in
 * {@value #CHECKPOINT_FILE} of its log directory (text, like the other offset checkpoints: {@code
 * topic partition firstDirtyOffset}).
 *
 * <p>A log needs cleaning when its dirty ratio reaches {@code min.cleanable.dirty.ratio}, or when
 * its oldest dirty record is older than {@code max.compaction.lag.ms}; among those the highest
 * ratio goes first. When none does, a log whose kept tombstones have passed their delete horizon is
 * cleaned to remove them. A log is cleaned by one thread at a time.
 *
 * <p>Shutdown sets an abort flag checked between batches; an interrupted pass leaves only {@code
 * *.cleaned} files, which the next load discards.
 *
 * <p>Failures, as in Kafka: an I/O error takes the log's directory offline ({@link
 * LogDirFailureChannel}); any other {@link Throwable} of a pass (a bug, a {@link
 * StackOverflowError} on a pathological batch, an {@link OutOfMemoryError}) marks that partition
 * uncleanable, so it is skipped until the broker restarts or the log is deleted, while the thread
 * goes on cleaning the other partitions. Nothing a pass throws ends a cleaner thread.
 */
public final class LogCleaner implements Closeable {
  public static final String CHECKPOINT_FILE = "cleaner-offset-checkpoint";

  private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);

  /** How long deleting a log waits for a pass over it to stop (it stops at its next batch). */
  static final long ABORT_WAIT_MS = 30_000;

  private final CleanerConfig config;
  private final Supplier<Collection<PartitionLog>> logs;
  private final Time time;
  private final Throttler throttler;
  private final Map<TopicPartition, Long> firstDirty = new ConcurrentHashMap<>();
  private final Map<TopicPartition, Long> tombstoneHorizon = new ConcurrentHashMap<>();
  private final Set<TopicPartition> inProgress = new HashSet<>();
  private final Map<TopicPartition, Path> uncleanable = new ConcurrentHashMap<>();
  private final LogDirFailureChannel dirFailures;
  private volatile UnaryOperator<Pass> passHook = UnaryOperator.identity();
  private final Object checkpointLock = new Object();
  private volatile boolean aborted;

  /** Partitions whose pass must stop at its next check: their log is being deleted. */
  private final Set<TopicPartition> abortRequested = ConcurrentHashMap.newKeySet();

  /** The partition the calling cleaner thread is cleaning, for {@link #shouldStop()}. */
  private final ThreadLocal<TopicPartition> cleaning = new ThreadLocal<>();

  private ScheduledExecutorService threads;

  /** One cleaning pass over one log ({@link Cleaner#clean}); a seam for tests. */
  @FunctionalInterface
  interface Pass {
    Cleaner.Result clean(PartitionLog partitionLog, long firstDirtyOffset) throws IOException;
  }

  public LogCleaner(
      CleanerConfig config,
      List<Path> logDirs,
      Supplier<Collection<PartitionLog>> logs,
      Time time) {
    this(config, logDirs, logs, time, new LogDirFailureChannel());
  }

  /**
   * @param dirFailures where an I/O error of a pass takes the log's directory offline
   */
  public LogCleaner(
      CleanerConfig config,
      List<Path> logDirs,
      Supplier<Collection<PartitionLog>> logs,
      Time time,
      LogDirFailureChannel dirFailures) {
    this.config = config;
    this.dirFailures = dirFailures;
    this.logs = logs;
    this.time = time;
    this.throttler = new Throttler(config.ioMaxBytesPerSecond(), time);
    for (Path dir : logDirs) {
      try {
        firstDirty.putAll(new OffsetCheckpointFile(dir.resolve(CHECKPOINT_FILE)).read());
      } catch (IOException e) {
        // Losing it costs one pass over already clean data, never correctness.
        log.warn("Ignoring unreadable cleaner checkpoint dir={} reason={}", dir, e.getMessage());
      }
    }
  }

  /** Starts the cleaner threads (none if {@code log.cleaner.enable=false} or 0 threads). */
  public synchronized void startup() {
    if (!config.enabled() || config.threads() == 0 || threads != null) {
      return;
    }
    ScheduledThreadPoolExecutor pool =
        new ScheduledThreadPoolExecutor(
            config.threads(),
            runnable -> {
              Thread thread = new Thread(runnable, "log-cleaner");
              thread.setDaemon(true);
              return thread;
            });
    threads = pool;
    for (int i = 0; i < config.threads(); i++) {
      Pass pass = passHook.apply(newCleaner()::clean);
      // runUntilIdle catches every Throwable: an escaping one would silently cancel the task.
      var unused =
          pool.scheduleWithFixedDelay(
              () -> runUntilIdle(pass), 0, config.backoffMs(), TimeUnit.MILLISECONDS);
    }
    log.info("Log cleaner started threads={}", config.threads());
  }

  /** A cleaner with this thread's share of the key map and I/O buffers. */
  public Cleaner newCleaner() {
    return new Cleaner(
        new OffsetMap(config.dedupeBufferPerThread(), config.dedupeBufferLoadFactor()),
        config.ioBufferPerThread(),
        throttler,
        time,
        this::shouldStop);
  }

  /** For tests: whether {@link #abortCleaning} is waiting for a pass over {@code tp}. */
  boolean isAbortRequested(TopicPartition tp) {
    return abortRequested.contains(tp);
  }

  /** Checked by a pass between batches: the cleaner is closing, or the log is being deleted. */
  private boolean shouldStop() {
    if (aborted) {
      return true;
    }
    TopicPartition tp = cleaning.get();
    return tp != null && abortRequested.contains(tp);
  }

  /**
   * Stops a pass over {@code tp} and waits (up to {@link #ABORT_WAIT_MS}) until it has ended: its
   * log is about to be deleted, and a pass meeting a log deleted under it would take the I/O errors
   * for a failing disk and the whole directory offline. Call after the log is out of the list this
   * cleaner picks from, so no new pass starts.
   */
  public void abortCleaning(TopicPartition tp) {
    abortRequested.add(tp);
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ABORT_WAIT_MS);
      synchronized (inProgress) {
        while (inProgress.contains(tp)) {
          long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
          if (leftMs <= 0) {
            log.warn("A cleaning pass did not stop in time topicPartition={}", tp);
            break;
          }
          inProgress.wait(leftMs);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      abortRequested.remove(tp);
    }
  }

  /** For tests: wraps the pass of every thread {@link #startup()} starts. */
  void setPassHook(UnaryOperator<Pass> hook) {
    this.passHook = hook;
  }

  private void runUntilIdle(Pass pass) {
    try {
      while (!aborted && cleanOnce(pass)) {
        // Keep going while logs need cleaning; back off once none does.
      }
    } catch (Throwable e) {
      // The thread must survive whatever escapes; cleanOnce already catches per log.
      log.error("Log cleaner thread caught an unexpected failure; it keeps running", e);
    }
  }

  /**
   * Picks the log most in need of cleaning and cleans it once with {@code cleaner}.
   *
   * @return whether a log was cleaned (false when none needed it)
   */
  public boolean cleanOnce(Cleaner cleaner) {
    return cleanOnce(cleaner::clean);
  }

  boolean cleanOnce(Pass pass) {
    PartitionLog chosen = grabFilthiestLog();
    if (chosen == null) {
      return false;
    }
    TopicPartition tp = chosen.topicPartition();
    cleaning.set(tp);
    try {
      Cleaner.Result result = pass.clean(chosen, firstDirty.getOrDefault(tp, 0L));
      if (result != null && result.swapped()) {
        firstDirty.put(tp, result.cleanedUpTo());
        if (result.retainedTombstones()) {
          tombstoneHorizon.put(tp, time.milliseconds() + chosen.config().deleteRetentionMs());
        } else {
          tombstoneHorizon.remove(tp);
        }
        writeCheckpoint(chosen.dir().getParent());
      }
      return result != null;
    } catch (IOException | UncheckedIOException e) {
      if (shouldStop()) {
        // Stopped on purpose (closing, or the log is being deleted): not the disk's fault.
        log.info("Cleaning stopped topicPartition={} reason={}", tp, e.getMessage());
        return false;
      }
      dirFailures.markOffline(chosen.dir().getParent(), "cleaning " + tp, e);
      return false;
    } catch (StorageException e) {
      // The log went offline or was closed under the pass; nothing to blame on its data.
      if (!aborted) {
        log.warn("Cleaning stopped, will retry topicPartition={} reason={}", tp, e.getMessage());
      }
      return false;
    } catch (Throwable e) {
      // Even an Error: it must not end the thread (see the class comment).
      if (!shouldStop()) {
        markUncleanable(chosen, e);
      }
      return false;
    } finally {
      cleaning.remove();
      synchronized (inProgress) {
        inProgress.remove(tp);
        inProgress.notifyAll();
      }
    }
  }

  private PartitionLog grabFilthiestLog() {
    long now = time.milliseconds();
    synchronized (inProgress) {
      PartitionLog best = null;
      double bestRatio = -1;
      PartitionLog tombstoned = null;
      for (PartitionLog candidate : logs.get()) {
        LogConfig cfg = candidate.config();
        TopicPartition tp = candidate.topicPartition();
        if (!cfg.compacted()
            || candidate.isOffline()
            || inProgress.contains(tp)
            || abortRequested.contains(tp)
            || uncleanable.containsKey(tp)) {
          continue;
        }
        List<LogSegment> segments = new ArrayList<>(candidate.segments());
        CleanableRange range =
            CleanableRange.of(candidate, segments, firstDirty.getOrDefault(tp, 0L), now);
        if (range == null) {
          continue;
        }
        boolean overdue =
            range.firstDirtyTimestamp() >= 0
                && now - range.firstDirtyTimestamp() > cfg.maxCompactionLagMs();
        boolean dirtyEnough =
            range.dirtyBytes() > 0 && range.dirtyRatio() >= cfg.minCleanableDirtyRatio();
        double ratio = overdue ? 2 : range.dirtyRatio();
        if ((dirtyEnough || overdue) && ratio > bestRatio) {
          best = candidate;
          bestRatio = ratio;
        }
        Long horizon = tombstoneHorizon.get(tp);
        if (horizon != null && horizon <= now) {
          tombstoned = candidate;
        }
      }
      PartitionLog chosen = best != null ? best : tombstoned;
      if (chosen != null) {
        inProgress.add(chosen.topicPartition());
      }
      return chosen;
    }
  }

  /** How far each log is clean, as last checkpointed (for tests and tools). */
  public Map<TopicPartition, Long> firstDirtyOffsets() {
    return Map.copyOf(firstDirty);
  }

  /**
   * Where the next pass over {@code tp} starts: every offset below it is clean (0 if the log was
   * never cleaned). Tiered storage copies only segments below it of a compacted topic.
   */
  public long firstDirtyOffset(TopicPartition tp) {
    return firstDirty.getOrDefault(tp, 0L);
  }

  /** Forgets a deleted log, so that a new log under the same name starts dirty. */
  public void remove(TopicPartition tp) {
    firstDirty.remove(tp);
    tombstoneHorizon.remove(tp);
    uncleanable.remove(tp);
  }

  private void markUncleanable(PartitionLog partitionLog, Throwable cause) {
    TopicPartition tp = partitionLog.topicPartition();
    if (!partitionLog.isOffline() && logs.get().contains(partitionLog)) {
      uncleanable.put(tp, partitionLog.dir().getParent());
    }
    log.error(
        "Cleaning failed; partition marked uncleanable until the broker restarts"
            + " topicPartition={} dir={}",
        tp,
        partitionLog.dir().getParent(),
        cause);
  }

  /** The partitions a pass failed on, which the cleaner skips (Kafka's uncleanable partitions). */
  public Set<TopicPartition> uncleanablePartitions() {
    return Set.copyOf(uncleanable.keySet());
  }

  /** Kafka's {@code uncleanable-partitions-count} of one log directory. */
  public int uncleanablePartitionsCount(Path logDir) {
    int count = 0;
    for (Path dir : uncleanable.values()) {
      if (dir.equals(logDir)) {
        count++;
      }
    }
    return count;
  }

  /**
   * Kafka's {@code uncleanable-bytes} of one log directory: the dirty bytes the uncleanable
   * partitions there would clean, computed now.
   */
  public long uncleanableBytes(Path logDir) {
    long bytes = 0;
    long now = time.milliseconds();
    for (PartitionLog partitionLog : logs.get()) {
      TopicPartition tp = partitionLog.topicPartition();
      if (!logDir.equals(uncleanable.get(tp)) || partitionLog.isOffline()) {
        continue;
      }
      try {
        CleanableRange range = rangeNow(partitionLog, now);
        bytes += range == null ? 0 : range.dirtyBytes();
      } catch (RuntimeException e) {
        log.debug("Sizing an uncleanable log failed topicPartition={}", tp, e);
      }
    }
    return bytes;
  }

  /**
   * How far the cleaner is behind, computed now over the compacted logs it may clean (Kafka's
   * cleaner lag figures).
   *
   * @param maxDirtyPercent the largest share of a log's cleanable bytes not yet cleaned, 0 to 100
   *     (Kafka's {@code max-dirty-percent})
   * @param maxCompactionDelaySecs the longest time a log's oldest dirty record has waited past its
   *     {@code max.compaction.lag.ms} (Kafka's {@code max-compaction-delay-secs})
   */
  public record Lag(double maxDirtyPercent, long maxCompactionDelaySecs) {}

  public Lag lag() {
    long now = time.milliseconds();
    double maxDirty = 0;
    long maxDelayMs = 0;
    for (PartitionLog candidate : logs.get()) {
      LogConfig cfg = candidate.config();
      TopicPartition tp = candidate.topicPartition();
      if (!cfg.compacted() || candidate.isOffline() || uncleanable.containsKey(tp)) {
        continue;
      }
      try {
        CleanableRange range = rangeNow(candidate, now);
        if (range == null) {
          continue;
        }
        maxDirty = Math.max(maxDirty, 100 * range.dirtyRatio());
        if (range.firstDirtyTimestamp() >= 0) {
          maxDelayMs =
              Math.max(maxDelayMs, now - range.firstDirtyTimestamp() - cfg.maxCompactionLagMs());
        }
      } catch (RuntimeException e) {
        log.debug("Sizing a log's dirty part failed topicPartition={}", tp, e);
      }
    }
    return new Lag(maxDirty, maxDelayMs / 1000);
  }

  /** The log's cleanable range as of now, from its current segments. */
  private CleanableRange rangeNow(PartitionLog partitionLog, long now) {
    return CleanableRange.of(
        partitionLog,
        new ArrayList<>(partitionLog.segments()),
        firstDirty.getOrDefault(partitionLog.topicPartition(), 0L),
        now);
  }

  private void writeCheckpoint(Path logDir) {
    // Not under this object's monitor: close() holds it while it waits for the threads. The
    // snapshot is taken under the lock too, so an older one is never written after a newer one.
    synchronized (checkpointLock) {
      Map<TopicPartition, Long> entries = new HashMap<>();
      for (PartitionLog partitionLog : logs.get()) {
        Long offset = firstDirty.get(partitionLog.topicPartition());
        if (offset != null && partitionLog.dir().getParent().equals(logDir)) {
          entries.put(partitionLog.topicPartition(), offset);
        }
      }
      try {
        new OffsetCheckpointFile(logDir.resolve(CHECKPOINT_FILE)).write(entries);
      } catch (IOException e) {
        dirFailures.markOffline(logDir, "writing " + CHECKPOINT_FILE, e);
      }
    }
  }

  /** Stops the threads, aborting a pass under way. */
  @Override
  public synchronized void close() {
    aborted = true;
    if (threads == null) {
      return;
    }
    threads.shutdownNow();
    try {
      if (!threads.awaitTermination(30, TimeUnit.SECONDS)) {
        log.warn("Log cleaner threads did not stop within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
