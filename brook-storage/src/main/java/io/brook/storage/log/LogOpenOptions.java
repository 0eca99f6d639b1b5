package io.brook.storage.log;

import io.brook.storage.LogDirFailureChannel;
import io.brook.storage.segment.FileHandlePool;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;

/**
 * Everything a partition log needs to open besides its directory and config: the state the log
 * manager checkpointed for it and the services it runs on.
 *
 * @param topicPartition the partition, for log lines
 * @param time the clock (injected so tests run on virtual time)
 * @param background where post-roll flushes run
 * @param producerIdExpirationMs {@code producer.id.expiration.ms}
 * @param recoveryPoint offset below which everything was flushed before the last stop
 * @param logStartOffset the checkpointed log start offset (0 if none)
 * @param highWatermark the checkpointed high watermark (0 if none)
 * @param hadCleanShutdown whether the directory was closed cleanly; if not, everything past the
 *     recovery point is re-validated
 * @param retentionCheckIntervalMs {@code log.retention.check.interval.ms}: the longest span of a
 *     segment under {@code retention.deadline.enable}
 * @param files the node's pool of open segment files ({@code brook.log.max.open.files})
 * @param dirFailures where an I/O error takes the log's whole directory offline
 * @param flushStats where the log reports its flush times
 */
public record LogOpenOptions(
    TopicPartition topicPartition,
    Time time,
    Executor background,
    long producerIdExpirationMs,
    long recoveryPoint,
    long logStartOffset,
    long highWatermark,
    boolean hadCleanShutdown,
    long retentionCheckIntervalMs,
    FileHandlePool files,
    LogDirFailureChannel dirFailures,
    LogFlushStats flushStats) {

  /** Kafka's {@code producer.id.expiration.ms} default: one day. */
  public static final long DEFAULT_PRODUCER_ID_EXPIRATION_MS = 24L * 60 * 60 * 1000;

  /** Kafka's {@code log.retention.check.interval.ms} default: five minutes. */
  public static final long DEFAULT_RETENTION_CHECK_INTERVAL_MS = 300_000;

  /**
   * A fresh or cleanly closed log with nothing checkpointed; flushes run on the caller; its files
   * are never closed while idle; a failure of its directory is recorded in a channel of its own.
   */
  public static LogOpenOptions defaults(TopicPartition topicPartition, Time time) {
    return new LogOpenOptions(
        topicPartition,
        time,
        Runnable::run,
        DEFAULT_PRODUCER_ID_EXPIRATION_MS,
        0,
        0,
        0,
        true,
        DEFAULT_RETENTION_CHECK_INTERVAL_MS,
        FileHandlePool.unbounded(),
        new LogDirFailureChannel(),
        new LogFlushStats());
  }

  public LogOpenOptions withCheckpoints(
      long recoveryPoint, long logStartOffset, long highWatermark, boolean hadCleanShutdown) {
    return new LogOpenOptions(
        topicPartition,
        time,
        background,
        producerIdExpirationMs,
        recoveryPoint,
        logStartOffset,
        highWatermark,
        hadCleanShutdown,
        retentionCheckIntervalMs,
        files,
        dirFailures,
        flushStats);
  }

  public LogOpenOptions withBackground(Executor executor) {
    return new LogOpenOptions(
        topicPartition,
        time,
        executor,
        producerIdExpirationMs,
        recoveryPoint,
        logStartOffset,
        highWatermark,
        hadCleanShutdown,
        retentionCheckIntervalMs,
        files,
        dirFailures,
        flushStats);
  }

  public LogOpenOptions withRetentionCheckIntervalMs(long intervalMs) {
    return new LogOpenOptions(
        topicPartition,
        time,
        background,
        producerIdExpirationMs,
        recoveryPoint,
        logStartOffset,
        highWatermark,
        hadCleanShutdown,
        intervalMs,
        files,
        dirFailures,
        flushStats);
  }

  public LogOpenOptions withFiles(FileHandlePool pool) {
    return new LogOpenOptions(
        topicPartition,
        time,
        background,
        producerIdExpirationMs,
        recoveryPoint,
        logStartOffset,
        highWatermark,
        hadCleanShutdown,
        retentionCheckIntervalMs,
        pool,
        dirFailures,
        flushStats);
  }

  public LogOpenOptions withDirFailures(LogDirFailureChannel channel) {
    return new LogOpenOptions(
        topicPartition,
        time,
        background,
        producerIdExpirationMs,
        recoveryPoint,
        logStartOffset,
        highWatermark,
        hadCleanShutdown,
        retentionCheckIntervalMs,
        files,
        channel,
        flushStats);
  }
}
