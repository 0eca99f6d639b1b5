package io.brook.storage.manager;

import io.brook.storage.cleaner.CleanerConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.segment.FileHandlePool;
import java.nio.file.Path;
import java.util.List;

/**
 * Broker-wide storage settings, under Kafka's names.
 *
 * @param logDirs {@code log.dirs}
 * @param recoveryThreadsPerDataDir {@code num.recovery.threads.per.data.dir}: partitions loaded in
 *     parallel per directory at start-up
 * @param flushCheckIntervalMs {@code log.flush.scheduler.interval.ms}: how often logs are checked
 *     against their {@code flush.ms}
 * @param recoveryPointCheckpointIntervalMs {@code log.flush.offset.checkpoint.interval.ms}
 * @param logStartOffsetCheckpointIntervalMs {@code log.flush.start.offset.checkpoint.interval.ms}
 * @param producerIdExpirationMs {@code producer.id.expiration.ms}
 * @param producerIdExpirationCheckIntervalMs {@code producer.id.expiration.check.interval.ms}
 * @param retentionCheckIntervalMs {@code log.retention.check.interval.ms}: how often every log
 *     deletes the segments past its retention
 * @param cleaner the log cleaner's settings
 * @param maxOpenFiles {@code brook.log.max.open.files}: segment files open at once, across all
 *     partitions and directories
 */
public record LogManagerConfig(
    List<Path> logDirs,
    int recoveryThreadsPerDataDir,
    long flushCheckIntervalMs,
    long recoveryPointCheckpointIntervalMs,
    long logStartOffsetCheckpointIntervalMs,
    long producerIdExpirationMs,
    long producerIdExpirationCheckIntervalMs,
    long retentionCheckIntervalMs,
    CleanerConfig cleaner,
    int maxOpenFiles) {

  /** Kafka's {@code num.recovery.threads.per.data.dir} default. */
  public static final int DEFAULT_RECOVERY_THREADS_PER_DATA_DIR = 2;

  /** Kafka's default for both checkpoint intervals: one minute. */
  public static final long DEFAULT_CHECKPOINT_INTERVAL_MS = 60_000;

  /** Kafka's {@code producer.id.expiration.check.interval.ms} default: ten minutes. */
  public static final long DEFAULT_PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 600_000;

  /** Kafka's defaults for retention checks and the cleaner, and Brook's open-file bound. */
  public LogManagerConfig(
      List<Path> logDirs,
      int recoveryThreadsPerDataDir,
      long flushCheckIntervalMs,
      long recoveryPointCheckpointIntervalMs,
      long logStartOffsetCheckpointIntervalMs,
      long producerIdExpirationMs,
      long producerIdExpirationCheckIntervalMs) {
    this(
        logDirs,
        recoveryThreadsPerDataDir,
        flushCheckIntervalMs,
        recoveryPointCheckpointIntervalMs,
        logStartOffsetCheckpointIntervalMs,
        producerIdExpirationMs,
        producerIdExpirationCheckIntervalMs,
        LogOpenOptions.DEFAULT_RETENTION_CHECK_INTERVAL_MS,
        CleanerConfig.DEFAULTS,
        FileHandlePool.DEFAULT_MAX_OPEN_FILES);
  }

  public LogManagerConfig {
    logDirs = List.copyOf(logDirs);
    if (logDirs.isEmpty()) {
      throw new IllegalArgumentException("log.dirs must name at least one directory");
    }
    if (recoveryThreadsPerDataDir < 1) {
      throw new IllegalArgumentException("num.recovery.threads.per.data.dir must be at least 1");
    }
    if (retentionCheckIntervalMs < 1) {
      throw new IllegalArgumentException("log.retention.check.interval.ms must be at least 1");
    }
    if (maxOpenFiles < 1) {
      throw new IllegalArgumentException("brook.log.max.open.files must be at least 1");
    }
  }

  /** Kafka's defaults for the given directories. */
  public static LogManagerConfig defaults(List<Path> logDirs) {
    return new LogManagerConfig(
        logDirs,
        DEFAULT_RECOVERY_THREADS_PER_DATA_DIR,
        Long.MAX_VALUE,
        DEFAULT_CHECKPOINT_INTERVAL_MS,
        DEFAULT_CHECKPOINT_INTERVAL_MS,
        LogOpenOptions.DEFAULT_PRODUCER_ID_EXPIRATION_MS,
        DEFAULT_PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS);
  }

  public LogManagerConfig withRetentionCheckIntervalMs(long intervalMs) {
    return new LogManagerConfig(
        logDirs,
        recoveryThreadsPerDataDir,
        flushCheckIntervalMs,
        recoveryPointCheckpointIntervalMs,
        logStartOffsetCheckpointIntervalMs,
        producerIdExpirationMs,
        producerIdExpirationCheckIntervalMs,
        intervalMs,
        cleaner,
        maxOpenFiles);
  }

  public LogManagerConfig withCleaner(CleanerConfig value) {
    return new LogManagerConfig(
        logDirs,
        recoveryThreadsPerDataDir,
        flushCheckIntervalMs,
        recoveryPointCheckpointIntervalMs,
        logStartOffsetCheckpointIntervalMs,
        producerIdExpirationMs,
        producerIdExpirationCheckIntervalMs,
        retentionCheckIntervalMs,
        value,
        maxOpenFiles);
  }

  public LogManagerConfig withMaxOpenFiles(int value) {
    return new LogManagerConfig(
        logDirs,
        recoveryThreadsPerDataDir,
        flushCheckIntervalMs,
        recoveryPointCheckpointIntervalMs,
        logStartOffsetCheckpointIntervalMs,
        producerIdExpirationMs,
        producerIdExpirationCheckIntervalMs,
        retentionCheckIntervalMs,
        cleaner,
        value);
  }
}
