package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;
import static org.apache.kafka.common.config.ConfigDef.Type.BOOLEAN;
import static org.apache.kafka.common.config.ConfigDef.Type.DOUBLE;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LIST;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;

import io.brook.storage.log.LogConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.TopicConfig;

/** Time and size retention, and the log cleaner that compacts topics. */
final class RetentionSettings {

  static final String LOG_RETENTION_MS = "log.retention.ms";
  static final String LOG_RETENTION_MINUTES = "log.retention.minutes";
  static final String LOG_RETENTION_HOURS = "log.retention.hours";
  static final String LOG_CLEANER_THREADS = "log.cleaner.threads";
  static final String LOG_CLEANER_DEDUPE_BUFFER_SIZE = "log.cleaner.dedupe.buffer.size";
  static final String LOG_RETENTION_CHECK_INTERVAL_MS = "log.retention.check.interval.ms";
  static final String LOG_CLEANER_ENABLE = "log.cleaner.enable";
  static final String LOG_CLEANER_IO_MAX_BYTES_PER_SECOND = "log.cleaner.io.max.bytes.per.second";
  static final String LOG_CLEANER_IO_BUFFER_SIZE = "log.cleaner.io.buffer.size";
  static final String LOG_CLEANER_IO_BUFFER_LOAD_FACTOR = "log.cleaner.io.buffer.load.factor";
  static final String LOG_CLEANER_BACKOFF_MS = "log.cleaner.backoff.ms";

  /**
   * The log cleaner needs at least this much dedupe buffer per thread, as Kafka requires: the
   * offset map of one cleaning pass must hold a useful number of keys (16 bytes of hash plus an
   * 8-byte offset each, so 1 MiB is about 44,000 keys).
   */
  static final long MIN_DEDUPE_BUFFER_PER_THREAD = 1024 * 1024;

  private RetentionSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.RETENTION)
        .uses(
            LOG_RETENTION_MS,
            LONG,
            null,
            ANY,
            HIGH,
            "How long data is kept (default of retention.ms); any negative value means forever."
                + " Takes precedence over log.retention.minutes and log.retention.hours.")
        .uses(
            LOG_RETENTION_MINUTES,
            INT,
            null,
            ANY,
            HIGH,
            "Retention in minutes, used when log.retention.ms is not set.")
        .uses(
            LOG_RETENTION_HOURS,
            INT,
            (int) (LogConfig.DEFAULT_RETENTION_MS / 3_600_000),
            ANY,
            HIGH,
            "Retention in hours, used when neither log.retention.ms nor log.retention.minutes is"
                + " set.")
        .uses(
            "log.retention.bytes",
            LONG,
            LogConfig.UNLIMITED,
            ANY,
            HIGH,
            "Size per partition above which the oldest segments are deleted (default of"
                + " retention.bytes); -1 means no limit.")
        .uses(
            LOG_RETENTION_CHECK_INTERVAL_MS,
            LONG,
            300_000L,
            atLeast(1),
            MEDIUM,
            "How often logs are checked for segments to delete.")
        .uses(
            "log.cleanup.policy",
            LIST,
            TopicConfig.CLEANUP_POLICY_DELETE,
            ConfigDef.ValidList.in(
                TopicConfig.CLEANUP_POLICY_COMPACT, TopicConfig.CLEANUP_POLICY_DELETE),
            MEDIUM,
            "Default cleanup.policy: delete (retention by time and size), compact (the log"
                + " cleaner keeps the latest record per key), both, or empty.")
        .uses(
            "log.segment.delete.delay.ms",
            LONG,
            LogConfig.DEFAULT_FILE_DELETE_DELAY_MS,
            atLeast(0),
            HIGH,
            "Grace period before a removed segment's files are deleted (default of"
                + " file.delete.delay.ms).")
        .uses(
            LOG_CLEANER_ENABLE,
            BOOLEAN,
            true,
            ANY,
            MEDIUM,
            "Run the log cleaner, which compacts topics with cleanup.policy=compact.")
        .uses(LOG_CLEANER_THREADS, INT, 1, atLeast(0), MEDIUM, "Threads that compact logs.")
        .uses(
            LOG_CLEANER_IO_MAX_BYTES_PER_SECOND,
            DOUBLE,
            Double.MAX_VALUE,
            ANY,
            MEDIUM,
            "Read plus write rate cap of the log cleaner, in bytes per second.")
        .uses(
            LOG_CLEANER_DEDUPE_BUFFER_SIZE,
            LONG,
            128L * 1024 * 1024,
            ANY,
            MEDIUM,
            "Memory across all cleaner threads for the key-to-offset map of a cleaning pass.")
        .uses(
            LOG_CLEANER_IO_BUFFER_SIZE,
            INT,
            512 * 1024,
            atLeast(0),
            MEDIUM,
            "Memory across all cleaner threads for read and write buffers.")
        .uses(
            LOG_CLEANER_IO_BUFFER_LOAD_FACTOR,
            DOUBLE,
            0.9d,
            ANY,
            MEDIUM,
            "How full the cleaner's dedupe map may get before a pass stops adding keys.")
        .uses(
            LOG_CLEANER_BACKOFF_MS,
            LONG,
            15_000L,
            atLeast(0),
            MEDIUM,
            "Pause of a cleaner thread when no log needs cleaning.")
        .uses(
            "log.cleaner.min.cleanable.ratio",
            DOUBLE,
            LogConfig.DEFAULT_MIN_CLEANABLE_DIRTY_RATIO,
            between(0, 1),
            MEDIUM,
            "Default of min.cleanable.dirty.ratio.")
        .uses(
            "log.cleaner.delete.retention.ms",
            LONG,
            LogConfig.DEFAULT_DELETE_RETENTION_MS,
            atLeast(0),
            MEDIUM,
            "Default of delete.retention.ms: how long tombstones survive compaction.")
        .uses(
            "log.cleaner.min.compaction.lag.ms",
            LONG,
            0L,
            atLeast(0),
            MEDIUM,
            "Default of min.compaction.lag.ms.")
        .uses(
            "log.cleaner.max.compaction.lag.ms",
            LONG,
            Long.MAX_VALUE,
            atLeast(1),
            MEDIUM,
            "Default of max.compaction.lag.ms.");
  }
}
