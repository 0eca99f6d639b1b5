package io.brook.storage.manager;

import io.brook.storage.LogDirFailureChannel;
import io.brook.storage.checkpoint.OffsetCheckpointFile;
import io.brook.storage.cleaner.LogCleaner;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogFlushStats;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.LogRetention;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.remote.RemoteLogManager;
import io.brook.storage.segment.FileHandlePool;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All partition logs of one broker, across its {@code log.dirs}.
 *
 * <p>Each directory holds one sub-directory per partition ({@code <topic>-<partition>}) plus:
 *
 * <ul>
 *   <li>{@code .lock}: held while the broker runs, see {@link DataDirectoryLock};
 *   <li>{@value #CLEAN_SHUTDOWN_FILE}: written after every log closed cleanly, deleted at start;
 *       without it every partition re-validates its tail;
 *   <li>{@value #RECOVERY_POINT_CHECKPOINT}, {@value #LOG_START_OFFSET_CHECKPOINT}, {@value
 *       #HIGH_WATERMARK_CHECKPOINT}: per partition offsets, written periodically and at shutdown.
 * </ul>
 *
 * <p>Disk errors: an I/O error of any file in a directory takes the whole directory offline ({@link
 * LogDirFailureChannel}); its logs stop serving and release their files, the other directories keep
 * working, and at shutdown it gets no clean-shutdown marker. A log that does not exist yet is then
 * not created anywhere (it may exist in the offline directory).
 */
public final class LogManager implements Closeable {
  public static final String CLEAN_SHUTDOWN_FILE = ".brook_cleanshutdown";
  public static final String RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
  public static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";
  public static final String HIGH_WATERMARK_CHECKPOINT = "replication-offset-checkpoint";

  /** Where the node keeps its metadata log, as Kafka does; not a partition of a user topic. */
  public static final String METADATA_DIRECTORY = "__cluster_metadata-0";

  private static final Logger log = LoggerFactory.getLogger(LogManager.class);

  /**
   * How often files of removed segments are checked against their {@code file.delete.delay.ms}: a
   * second is far below the one-minute default delay and costs one queue peek per log.
   */
  private static final long PENDING_DELETE_CHECK_MS = 1_000;

  private final LogManagerConfig config;
  private final Function<String, LogConfig> topicConfigs;
  private final Time time;
  private final ScheduledExecutorService scheduler;
  private final Map<Path, DataDirectoryLock> locks;
  private final ConcurrentHashMap<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
  private final List<ScheduledFuture<?>> tasks = new ArrayList<>();

  /**
   * Held for reading by every periodic run, and for writing by {@link #close} once it begins:
   * cancelling a scheduled task does not stop a run already under way, and a retention pass or a
   * checkpoint still running while the logs close, or after the directories were marked clean and
   * unlocked, would write over what the close (or the next owner of the directories) wrote.
   */
  private final ReentrantReadWriteLock periodicRuns = new ReentrantReadWriteLock();

  private final FileHandlePool files;
  private final LogDirFailureChannel dirFailures;
  private final LogFlushStats flushStats = new LogFlushStats();

  /** One lock per checkpoint file name, held while its offsets are read and written. */
  private final ConcurrentHashMap<String, Object> checkpointLocks = new ConcurrentHashMap<>();

  private LogCleaner cleaner;
  private volatile RemoteLogManager remote;
  private volatile boolean closed;

  private LogManager(
      LogManagerConfig config,
      Function<String, LogConfig> topicConfigs,
      Time time,
      ScheduledExecutorService scheduler,
      Map<Path, DataDirectoryLock> locks,
      LogDirFailureChannel dirFailures) {
    this.config = config;
    this.dirFailures = dirFailures;
    this.topicConfigs = topicConfigs;
    this.time = time;
    this.scheduler = scheduler;
    this.locks = locks;
    this.files = new FileHandlePool(config.maxOpenFiles());
    dirFailures.addListener(this::takeDirOffline);
  }

  /** Hands this broker's tiered storage to the log manager, which closes it before the logs. */
  public void attachRemote(RemoteLogManager remoteLogManager) throws IOException {
    if (cleaner != null) {
      // Compacted topics copy only what the cleaner has cleaned, and are compacted remotely too.
      remoteLogManager.attachCleaner(cleaner::firstDirtyOffset, config.cleaner());
    }
    this.remote = remoteLogManager;
  }

  /** Tiered storage, when {@code remote.log.storage.system.enable} is on. */
  public Optional<RemoteLogManager> remote() {
    return Optional.ofNullable(remote);
  }

  /** The pool bounding open segment files across every log here. */
  public FileHandlePool files() {
    return files;
  }

  /**
   * Locks every data directory, loads every partition in parallel (recovering those not closed
   * cleanly), and schedules the periodic flush, checkpoint and producer-expiry tasks.
   *
   * @param topicConfigs the config of each topic, by name
   * @throws DirectoryInUseException if another process holds one of the directories
   */
  public static LogManager start(
      LogManagerConfig config,
      Function<String, LogConfig> topicConfigs,
      Time time,
      ScheduledExecutorService scheduler)
      throws IOException {
    return start(config, topicConfigs, time, scheduler, new LogDirFailureChannel());
  }

  /**
   * {@link #start(LogManagerConfig, Function, Time, ScheduledExecutorService)}, reporting failed
   * directories through {@code dirFailures} (a simulation gives one that runs its listeners on its
   * own event loop).
   */
  public static LogManager start(
      LogManagerConfig config,
      Function<String, LogConfig> topicConfigs,
      Time time,
      ScheduledExecutorService scheduler,
      LogDirFailureChannel dirFailures)
      throws IOException {
    Map<Path, DataDirectoryLock> locks = new LinkedHashMap<>();
    try {
      for (Path dir : config.logDirs()) {
        locks.put(dir, DataDirectoryLock.acquire(dir));
      }
    } catch (IOException e) {
      for (DataDirectoryLock lock : locks.values()) {
        lock.close();
      }
      throw e;
    }
    LogManager manager = new LogManager(config, topicConfigs, time, scheduler, locks, dirFailures);
    try {
      manager.loadLogs();
    } catch (IOException | RuntimeException e) {
      manager.closeQuietlyAfterFailedStart();
      throw e;
    }
    manager.cleaner =
        new LogCleaner(
            config.cleaner(), config.logDirs(), manager.logs::values, time, manager.dirFailures);
    manager.cleaner.startup();
    manager.schedulePeriodicTasks();
    return manager;
  }

  private void loadLogs() throws IOException {
    long started = time.milliseconds();
    int threads = config.recoveryThreadsPerDataDir() * config.logDirs().size();
    ExecutorService pool = Executors.newFixedThreadPool(threads, daemonThreads("log-loader"));
    try {
      Map<Path, List<Future<PartitionLog>>> loads = new LinkedHashMap<>();
      IOException failure = null;
      for (Path dir : config.logDirs()) {
        try {
          loads.put(dir, submitLoads(dir, pool));
        } catch (IOException e) {
          failure = accumulate(failure, e);
          dirFailures.markOffline(dir, "loading the logs", e);
        }
      }
      for (Map.Entry<Path, List<Future<PartitionLog>>> dirLoads : loads.entrySet()) {
        for (Future<PartitionLog> load : dirLoads.getValue()) {
          try {
            PartitionLog partitionLog = load.get();
            logs.put(partitionLog.topicPartition(), partitionLog);
          } catch (ExecutionException e) {
            failure = accumulate(failure, e.getCause());
            if (!(e.getCause() instanceof IOException)) {
              throw failure;
            }
            // As in Kafka: a directory that cannot be read goes offline, the others serve.
            dirFailures.markOffline(dirLoads.getKey(), "loading a log", e.getCause());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while loading logs", e);
          }
        }
      }
      if (failure != null && dirFailures.offlineCount() == config.logDirs().size()) {
        throw failure;
      }
      for (PartitionLog partitionLog : logs.values()) {
        if (isLogDirOffline(logDirOf(partitionLog))) {
          partitionLog.markDirOffline();
        }
      }
    } finally {
      pool.shutdownNow();
    }
    log.info(
        "Loaded logs count={} dirs={} durationMs={}",
        logs.size(),
        config.logDirs().size(),
        time.milliseconds() - started);
  }

  private static IOException accumulate(IOException failure, Throwable cause) {
    IOException next =
        cause instanceof IOException io ? io : new IOException("loading a log failed", cause);
    if (failure == null) {
      return next;
    }
    failure.addSuppressed(next);
    return failure;
  }

  private List<Future<PartitionLog>> submitLoads(Path dir, ExecutorService pool)
      throws IOException {
    Path marker = dir.resolve(CLEAN_SHUTDOWN_FILE);
    boolean clean = Files.exists(marker);
    // From here on a crash must lead to recovery, even if it happens during this load.
    Files.deleteIfExists(marker);
    Map<TopicPartition, Long> recoveryPoints = readCheckpoint(dir, RECOVERY_POINT_CHECKPOINT);
    Map<TopicPartition, Long> logStarts = readCheckpoint(dir, LOG_START_OFFSET_CHECKPOINT);
    Map<TopicPartition, Long> highWatermarks = readCheckpoint(dir, HIGH_WATERMARK_CHECKPOINT);
    List<Future<PartitionLog>> loads = new ArrayList<>();
    try (Stream<Path> children = Files.list(dir)) {
      for (Path child : (Iterable<Path>) children::iterator) {
        if (!Files.isDirectory(child)
            || child.getFileName().toString().equals(METADATA_DIRECTORY)) {
          continue;
        }
        Optional<TopicPartition> tp = PartitionDirectories.parse(child);
        if (tp.isEmpty()) {
          log.warn("Ignoring directory that is not a partition dir={}", child);
          continue;
        }
        LogOpenOptions options =
            openOptions(tp.get())
                .withCheckpoints(
                    recoveryPoints.getOrDefault(tp.get(), 0L),
                    logStarts.getOrDefault(tp.get(), 0L),
                    highWatermarks.getOrDefault(tp.get(), 0L),
                    clean);
        LogConfig logConfig = topicConfigs.apply(tp.get().topic());
        loads.add(pool.submit(() -> PartitionLog.open(child, logConfig, options)));
      }
    }
    if (!clean && !loads.isEmpty()) {
      log.info("Directory was not shut down cleanly, recovering unflushed data dir={}", dir);
    }
    return loads;
  }

  private static Map<TopicPartition, Long> readCheckpoint(Path dir, String name) {
    try {
      return new OffsetCheckpointFile(dir.resolve(name)).read();
    } catch (IOException e) {
      // Losing a checkpoint only costs a longer recovery, never data.
      log.warn(
          "Ignoring unreadable checkpoint file={} reason={}", dir.resolve(name), e.getMessage());
      return Map.of();
    }
  }

  private LogOpenOptions openOptions(TopicPartition tp) {
    return new LogOpenOptions(
        tp,
        time,
        scheduler::execute,
        config.producerIdExpirationMs(),
        0,
        0,
        0,
        true,
        config.retentionCheckIntervalMs(),
        files,
        dirFailures,
        flushStats);
  }

  private void schedulePeriodicTasks() {
    schedule("flush-dirty-logs", config.flushCheckIntervalMs(), this::flushDirtyLogs);
    schedule(
        "checkpoint-recovery-points",
        config.recoveryPointCheckpointIntervalMs(),
        this::checkpointRecoveryPointsAndHighWatermarks);
    schedule(
        "checkpoint-log-start-offsets",
        config.logStartOffsetCheckpointIntervalMs(),
        () -> checkpoint(LOG_START_OFFSET_CHECKPOINT, PartitionLog::logStartOffset));
    schedule("log-retention", config.retentionCheckIntervalMs(), this::deleteOldSegments);
    schedule(
        "log-retention-deadline",
        LogRetention.deadlineCheckIntervalMs(config.retentionCheckIntervalMs()),
        this::deleteOldSegmentsOfDeadlineTopics);
    schedule("delete-pending-files", PENDING_DELETE_CHECK_MS, this::deletePendingFiles);
    schedule(
        "expire-producer-ids",
        config.producerIdExpirationCheckIntervalMs(),
        () -> logs.values().forEach(PartitionLog::removeExpiredProducers));
  }

  /**
   * Deletes every log's segments past retention; if any went, checkpoints the log start offsets at
   * once, so that a restart does not expose offsets a consumer was already told are gone.
   *
   * @return the number of segments deleted
   */
  public int deleteOldSegments() {
    int deleted = 0;
    for (PartitionLog partitionLog : logs.values()) {
      deleted += partitionLog.deleteOldSegments();
    }
    if (deleted > 0) {
      checkpoint(LOG_START_OFFSET_CHECKPOINT, PartitionLog::logStartOffset);
    }
    return deleted;
  }

  /**
   * The retention check of the topics with {@code retention.deadline.enable}, which run it twice
   * per {@code log.retention.check.interval.ms} (see {@link LogRetention#deadlineCheckIntervalMs}).
   */
  void deleteOldSegmentsOfDeadlineTopics() {
    int deleted = 0;
    for (PartitionLog partitionLog : logs.values()) {
      if (partitionLog.config().retentionDeadlineEnable()) {
        deleted += partitionLog.deleteOldSegments();
      }
    }
    if (deleted > 0) {
      checkpoint(LOG_START_OFFSET_CHECKPOINT, PartitionLog::logStartOffset);
    }
  }

  /** Removes the files of segments whose {@code file.delete.delay.ms} has passed. */
  public void deletePendingFiles() {
    for (PartitionLog partitionLog : logs.values()) {
      partitionLog.deletePendingFiles();
    }
  }

  /** Where every log of this manager reports its flush times. */
  public LogFlushStats flushStats() {
    return flushStats;
  }

  /** The log cleaner (its threads run only if {@code log.cleaner.enable}). */
  public LogCleaner cleaner() {
    return cleaner;
  }

  private void schedule(String name, long intervalMs, Runnable task) {
    if (intervalMs == Long.MAX_VALUE) {
      return;
    }
    Runnable guarded =
        () -> {
          if (!periodicRuns.readLock().tryLock()) {
            return; // closing
          }
          try {
            if (!closed) {
              task.run();
            }
          } catch (RuntimeException e) {
            log.error("Periodic storage task failed task={}", name, e);
          } finally {
            periodicRuns.readLock().unlock();
          }
        };
    tasks.add(
        scheduler.scheduleWithFixedDelay(guarded, intervalMs, intervalMs, TimeUnit.MILLISECONDS));
  }

  // ---------------------------------------------------------------------------------------------

  /** The log of {@code tp}, created in the least-used directory if it does not exist yet. */
  public PartitionLog getOrCreateLog(TopicPartition tp) throws IOException {
    PartitionLog existing = logs.get(tp);
    if (existing != null) {
      return existing;
    }
    synchronized (this) {
      existing = logs.get(tp);
      if (existing != null) {
        return existing;
      }
      if (closed) {
        throw new IOException("the log manager is shut down");
      }
      if (dirFailures.offlineCount() > 0) {
        // The log may exist in the offline directory: an empty one elsewhere could be elected.
        throw new IOException(
            "cannot create the log of "
                + tp
                + ": log directories are offline "
                + dirFailures.offlineDirs());
      }
      Path dir = leastLoadedDirectory().resolve(PartitionDirectories.name(tp));
      PartitionLog created =
          PartitionLog.open(dir, topicConfigs.apply(tp.topic()), openOptions(tp));
      logs.put(tp, created);
      log.debug("Created log topicPartition={} dir={}", tp, dir);
      return created;
    }
  }

  private Path leastLoadedDirectory() {
    if (config.logDirs().size() == 1) {
      // The count below walks every log: quadratic when creating tens of thousands of them.
      return config.logDirs().get(0);
    }
    Map<Path, Integer> counts = new HashMap<>();
    for (Path dir : config.logDirs()) {
      counts.put(dir, 0);
    }
    for (PartitionLog partitionLog : logs.values()) {
      counts.merge(partitionLog.dir().getParent(), 1, Integer::sum);
    }
    Path best = config.logDirs().get(0);
    for (Path dir : config.logDirs()) {
      if (counts.get(dir) < counts.get(best)) {
        best = dir;
      }
    }
    return best;
  }

  public Optional<PartitionLog> getLog(TopicPartition tp) {
    return Optional.ofNullable(logs.get(tp));
  }

  /** Every log, by partition (an unmodifiable view). */
  public Map<TopicPartition, PartitionLog> logs() {
    return Collections.unmodifiableMap(logs);
  }

  /** Closes and deletes the log of {@code tp}, if there is one; its remote data stays. */
  public void deleteLog(TopicPartition tp) throws IOException {
    deleteLog(tp, Optional.empty());
  }

  /**
   * Closes and deletes the log of a partition whose topic was deleted, if there is one, and the
   * partition's remote data too (in the background, by the deleted topic's id), if it was tiered.
   */
  public void deleteLogOfDeletedTopic(TopicIdPartition deleted) throws IOException {
    deleteLog(deleted.topicPartition(), Optional.of(deleted));
  }

  private void deleteLog(TopicPartition tp, Optional<TopicIdPartition> deletedTopic)
      throws IOException {
    PartitionLog removed = logs.remove(tp);
    if (cleaner != null) {
      cleaner.abortCleaning(tp);
      cleaner.remove(tp);
    }
    RemoteLogManager tiered = remote;
    if (tiered != null) {
      if (deletedTopic.isPresent() && removed != null && removed.config().remoteStorageEnable()) {
        tiered.deleteRemoteData(deletedTopic.get());
      } else {
        tiered.forget(tp);
      }
    }
    if (removed != null) {
      removed.delete();
      log.info("Deleted log topicPartition={}", tp);
    }
  }

  /** Flushes every log whose {@code flush.ms} has passed. */
  public void flushDirtyLogs() {
    for (PartitionLog partitionLog : logs.values()) {
      if (!partitionLog.isOffline()) {
        partitionLog.flushIfDue();
      }
    }
  }

  /** Writes the recovery-point and high-watermark checkpoints of every directory. */
  public void checkpointRecoveryPointsAndHighWatermarks() {
    checkpoint(RECOVERY_POINT_CHECKPOINT, PartitionLog::recoveryPoint);
    checkpoint(HIGH_WATERMARK_CHECKPOINT, PartitionLog::highWatermark);
  }

  /**
   * Writes {@code fileName} in every online directory; a write that fails takes its directory
   * offline.
   *
   * <p>One file at a time: the log start offsets are written by their own periodic task and by both
   * retention tasks, which run on a pool of more than one thread, and at close. Two writers of one
   * file share its temporary file ({@link io.brook.storage.checkpoint.AtomicFiles}): one truncates
   * it while the other renames it into place, and the second rename finds nothing and took the
   * directory offline. The offsets are read under the lock too, so an older snapshot is never
   * written over a newer one (a log start checkpointed back would bring offsets a DeleteRecords
   * removed back after a restart).
   */
  private void checkpoint(String fileName, Function<PartitionLog, Long> offset) {
    synchronized (checkpointLocks.computeIfAbsent(fileName, f -> new Object())) {
      checkpointLocked(fileName, offset);
    }
  }

  private void checkpointLocked(String fileName, Function<PartitionLog, Long> offset) {
    Map<Path, Map<TopicPartition, Long>> byDir = new HashMap<>();
    for (Path dir : config.logDirs()) {
      if (!isLogDirOffline(dir)) {
        byDir.put(dir, new HashMap<>());
      }
    }
    for (PartitionLog partitionLog : logs.values()) {
      Map<TopicPartition, Long> entries = byDir.get(partitionLog.dir().getParent());
      if (entries != null) {
        entries.put(partitionLog.topicPartition(), offset.apply(partitionLog));
      }
    }
    for (Map.Entry<Path, Map<TopicPartition, Long>> entry : byDir.entrySet()) {
      try {
        new OffsetCheckpointFile(entry.getKey().resolve(fileName)).write(entry.getValue());
      } catch (IOException e) {
        dirFailures.markOffline(entry.getKey(), "writing " + fileName, e);
      }
    }
  }

  // ---- Log directory failures ----

  /** Where the failures of this node's log directories are recorded and handled. */
  public LogDirFailureChannel dirFailures() {
    return dirFailures;
  }

  /** This node's {@code log.dirs}. */
  public List<Path> logDirs() {
    return config.logDirs();
  }

  public boolean isLogDirOffline(Path logDir) {
    return dirFailures.isOffline(logDir);
  }

  /** Kafka's {@code OfflineLogDirectoryCount}. */
  public int offlineLogDirectoryCount() {
    return dirFailures.offlineCount();
  }

  /** The log directory ({@code log.dirs} entry) holding {@code partitionLog}. */
  public static Path logDirOf(ReplicaLog partitionLog) {
    return partitionLog.dir().getParent();
  }

  /** On the failure handler's thread: every log of the failed directory stops serving. */
  private void takeDirOffline(Path logDir) {
    int count = 0;
    for (PartitionLog partitionLog : logs.values()) {
      if (isLogDirOffline(logDirOf(partitionLog))) {
        partitionLog.markDirOffline();
        count++;
      }
    }
    log.error(
        "Log directory offline logs={} dir={} offlineDirs={} of={}",
        count,
        logDir,
        dirFailures.offlineCount(),
        config.logDirs().size());
  }

  /**
   * Closes every log (flushing it), writes all checkpoints, marks each directory whose logs all
   * closed cleanly, and releases the directory locks.
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    tasks.forEach(task -> task.cancel(false));
    // Waits for a run under way to finish, and is never released: a run due later finds the lock
    // taken (or closed set) and does nothing. No periodic task waits on this manager's monitor,
    // which the close holds, so the wait cannot deadlock.
    periodicRuns.writeLock().lock();
    if (cleaner != null) {
      cleaner.close();
    }
    RemoteLogManager tiered = remote;
    if (tiered != null) {
      // Before the logs: a copy in progress reads their segments.
      try {
        tiered.close();
      } catch (IOException | RuntimeException e) {
        log.warn("Closing remote storage failed", e);
      }
    }
    closeLogs();
    checkpoint(RECOVERY_POINT_CHECKPOINT, PartitionLog::recoveryPoint);
    checkpoint(HIGH_WATERMARK_CHECKPOINT, PartitionLog::highWatermark);
    checkpoint(LOG_START_OFFSET_CHECKPOINT, PartitionLog::logStartOffset);
    // Only now, after every write of the directory succeeded: a directory with a failed write
    // (offline) gets no marker, so the next start recovers it.
    for (Path dir : config.logDirs()) {
      if (isLogDirOffline(dir)) {
        log.warn("Log directory left without a clean-shutdown marker dir={}", dir);
        continue;
      }
      try {
        Files.createFile(dir.resolve(CLEAN_SHUTDOWN_FILE));
      } catch (IOException e) {
        dirFailures.markOffline(dir, "writing " + CLEAN_SHUTDOWN_FILE, e);
      }
    }
    dirFailures.close();
    for (DataDirectoryLock lock : locks.values()) {
      lock.close();
    }
    log.info("Log manager shut down logs={}", logs.size());
  }

  /**
   * Closes every log, on {@code num.recovery.threads.per.data.dir} threads per directory as Kafka
   * does: a close may wait on fsyncs (the active segment's tail, the leader-epoch checkpoint, the
   * producer snapshot), and the logs of one broker do not wait on each other. What made a broker of
   * tens of thousands of empty partitions slow to stop was the fsyncs themselves, not their order
   * (see LeaderEpochCache#flushBelow).
   */
  private void closeLogs() {
    int threads = config.recoveryThreadsPerDataDir() * config.logDirs().size();
    ExecutorService pool = Executors.newFixedThreadPool(threads, daemonThreads("log-closer"));
    try {
      List<Future<?>> closes = new ArrayList<>(logs.size());
      for (PartitionLog partitionLog : logs.values()) {
        closes.add(pool.submit(() -> closeLog(partitionLog)));
      }
      for (Future<?> close : closes) {
        try {
          close.get();
        } catch (ExecutionException e) {
          // closeLog takes every failure a close can report; anything else is a bug, logged.
          log.error("Closing a log failed", e.getCause());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("Interrupted while closing logs; the directories are recovered at the next start");
      for (Path dir : config.logDirs()) {
        dirFailures.markOffline(dir, "closing the logs", e);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void closeLog(PartitionLog partitionLog) {
    try {
      partitionLog.close();
    } catch (IOException | RuntimeException | InternalError e) {
      // A failed flush, producer snapshot or epoch checkpoint: the directory is not clean.
      // InternalError: a fault writing an index mapping on a failed disk.
      dirFailures.markOffline(
          logDirOf(partitionLog), "closing the log of " + partitionLog.topicPartition(), e);
    }
  }

  private void closeQuietlyAfterFailedStart() {
    dirFailures.close();
    for (PartitionLog partitionLog : logs.values()) {
      try {
        partitionLog.close();
      } catch (IOException | RuntimeException e) {
        log.warn(
            "Closing log after a failed start failed topicPartition={}",
            partitionLog.topicPartition(),
            e);
      }
    }
    for (DataDirectoryLock lock : locks.values()) {
      try {
        lock.close();
      } catch (IOException e) {
        log.warn("Releasing lock failed file={}", lock.file(), e);
      }
    }
  }

  private static java.util.concurrent.ThreadFactory daemonThreads(String prefix) {
    return runnable -> {
      Thread thread = new Thread(runnable, prefix);
      thread.setDaemon(true);
      return thread;
    };
  }
}
