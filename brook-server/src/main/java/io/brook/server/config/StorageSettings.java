package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
import static io.brook.server.config.ConfigTable.optional;
import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;
import static org.apache.kafka.common.config.ConfigDef.Type.BOOLEAN;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LIST;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.TopicCompression;
import io.brook.storage.log.TopicConfigs;
import io.brook.storage.record.RecordLimits;
import io.brook.storage.segment.FileHandlePool;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Log directories, segments, indexes, flushing, timestamps and compression: the broker-wide
 * defaults of the matching topic configs, plus the storage engine's own settings.
 */
final class StorageSettings {

  static final String LOG_DIRS = "log.dirs";
  static final String LOG_DIR = "log.dir";
  static final String NUM_PARTITIONS = "num.partitions";
  static final String AUTO_CREATE_TOPICS_ENABLE = "auto.create.topics.enable";
  static final String DELETE_TOPIC_ENABLE = "delete.topic.enable";
  static final String NUM_RECOVERY_THREADS_PER_DATA_DIR = "num.recovery.threads.per.data.dir";
  static final String LOG_FLUSH_SCHEDULER_INTERVAL_MS = "log.flush.scheduler.interval.ms";
  static final String LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS =
      "log.flush.offset.checkpoint.interval.ms";
  static final String LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS =
      "log.flush.start.offset.checkpoint.interval.ms";
  static final String MAX_OPEN_FILES = "brook.log.max.open.files";
  static final String MAX_INFLATED_BYTES_FACTOR = "brook.max.inflated.bytes.factor";

  /** Kafka's {@code log.dir} default. */
  static final String DEFAULT_LOG_DIR = "/tmp/kafka-logs";

  private StorageSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.STORAGE)
        .uses(
            LOG_DIRS,
            LIST,
            null,
            ConfigDef.ValidList.anyNonDuplicateValues(false, true),
            HIGH,
            "Comma-separated data directories; partitions are spread across them. Overrides"
                + " log.dir.")
        .uses(
            LOG_DIR,
            LIST,
            DEFAULT_LOG_DIR,
            ConfigDef.ValidList.anyNonDuplicateValues(false, false),
            HIGH,
            "Data directory (or directories) used when log.dirs is not set.")
        .uses(
            NUM_PARTITIONS,
            INT,
            1,
            atLeast(1),
            MEDIUM,
            "Partition count of auto-created topics and of CreateTopics requests without one.")
        .uses(
            AUTO_CREATE_TOPICS_ENABLE,
            BOOLEAN,
            true,
            ANY,
            HIGH,
            "Create a topic with default settings when a client asks for an unknown one.")
        .accepts(
            DELETE_TOPIC_ENABLE,
            BOOLEAN,
            true,
            ANY,
            HIGH,
            "Whether DeleteTopics requests are honoured.")
        .uses(
            "message.max.bytes",
            INT,
            LogConfig.DEFAULT_MAX_MESSAGE_BYTES,
            atLeast(0),
            HIGH,
            "Largest record batch in bytes, after compression (default of max.message.bytes).")
        .uses(
            "log.segment.bytes",
            INT,
            LogConfig.DEFAULT_SEGMENT_BYTES,
            atLeast(1024 * 1024),
            HIGH,
            "Segment file size at which a new segment is started (default of segment.bytes).")
        .uses(
            "log.roll.ms",
            LONG,
            null,
            optional(atLeast(1)),
            HIGH,
            "Age at which the active segment is rolled; takes precedence over log.roll.hours.")
        .uses(
            "log.roll.hours",
            INT,
            (int) (LogConfig.DEFAULT_SEGMENT_MS / 3_600_000),
            atLeast(1),
            HIGH,
            "Age in hours at which the active segment is rolled (default of segment.ms).")
        .accepts(
            "log.roll.jitter.ms",
            LONG,
            null,
            optional(atLeast(0)),
            HIGH,
            "Largest random amount taken off the roll age; takes precedence over"
                + " log.roll.jitter.hours.")
        .accepts(
            "log.roll.jitter.hours",
            INT,
            0,
            atLeast(0),
            HIGH,
            "Largest random amount in hours taken off the roll age (default of"
                + " segment.jitter.ms).")
        .uses(
            "log.index.size.max.bytes",
            INT,
            LogConfig.DEFAULT_SEGMENT_INDEX_BYTES,
            atLeast(4),
            MEDIUM,
            "Preallocated size of each offset and time index (default of segment.index.bytes).")
        .uses(
            "log.index.interval.bytes",
            INT,
            LogConfig.DEFAULT_INDEX_INTERVAL_BYTES,
            atLeast(0),
            MEDIUM,
            "Bytes of log between sparse index entries (default of index.interval.bytes).")
        .uses(
            "log.flush.interval.messages",
            LONG,
            Long.MAX_VALUE,
            atLeast(1),
            HIGH,
            "Records appended to a partition before it is fsynced (default of flush.messages).")
        .uses(
            "log.flush.interval.ms",
            LONG,
            null,
            optional(atLeast(0)),
            HIGH,
            "Age of the oldest unflushed record that forces an fsync (default of flush.ms);"
                + " unset means log.flush.scheduler.interval.ms.")
        .uses(
            LOG_FLUSH_SCHEDULER_INTERVAL_MS,
            LONG,
            Long.MAX_VALUE,
            ANY,
            HIGH,
            "How often logs are checked against their flush.ms.")
        .uses(
            LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS,
            INT,
            60_000,
            atLeast(0),
            HIGH,
            "How often each directory's recovery points are checkpointed.")
        .uses(
            LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS,
            INT,
            60_000,
            atLeast(0),
            HIGH,
            "How often each directory's log start offsets are checkpointed.")
        .uses(
            MAX_OPEN_FILES,
            INT,
            FileHandlePool.DEFAULT_MAX_OPEN_FILES,
            atLeast(1),
            MEDIUM,
            "Brook only: how many segment files the broker keeps open at once, across all"
                + " partitions. Segments open their files (and map their indexes) on first use"
                + " and the least recently used idle ones are closed past this bound, so the"
                + " partition count is limited by memory and disk rather than by ulimit -n. Files"
                + " being read or written stay open, so the bound can be passed briefly.")
        .uses(
            MAX_INFLATED_BYTES_FACTOR,
            INT,
            RecordLimits.DEFAULT_INFLATION_FACTOR,
            atLeast(1),
            MEDIUM,
            "Brook only: the records of one batch may decompress to at most max.message.bytes"
                + " times this (32 MiB with the defaults), and no one record may be larger. A"
                + " produced batch past it is refused with INVALID_RECORD before its inflated size"
                + " is allocated; the cleaner keeps such a batch (copied by a follower) whole and"
                + " time lookups answer with its first offset. Bounds the memory and CPU one"
                + " decompression bomb can cost.")
        .accepts(
            "log.preallocate",
            BOOLEAN,
            false,
            ANY,
            MEDIUM,
            "Create segment files at full size up front (default of preallocate).")
        .uses(
            "log.message.timestamp.type",
            STRING,
            "CreateTime",
            ConfigDef.ValidString.in("CreateTime", "LogAppendTime"),
            MEDIUM,
            "Keep producer timestamps (CreateTime) or stamp the broker's clock (LogAppendTime).")
        .uses(
            "log.message.timestamp.before.max.ms",
            LONG,
            Long.MAX_VALUE,
            atLeast(0),
            MEDIUM,
            "How far behind the broker's clock a CreateTime timestamp may be.")
        .uses(
            "log.message.timestamp.after.max.ms",
            LONG,
            LogConfig.DEFAULT_TIMESTAMP_AFTER_MAX_MS,
            atLeast(0),
            MEDIUM,
            "How far ahead of the broker's clock a CreateTime timestamp may be.")
        .uses(
            NUM_RECOVERY_THREADS_PER_DATA_DIR,
            INT,
            2,
            atLeast(1),
            HIGH,
            "Threads per data directory that load and recover logs at start-up.")
        .accepts(
            "log.dir.failure.timeout.ms",
            LONG,
            30_000L,
            atLeast(1),
            LOW,
            "How long a broker keeps running after failing to report a failed log directory to"
                + " the controller.")
        .accepts(
            "log.initial.task.delay.ms",
            LONG,
            30_000L,
            atLeast(0),
            LOW,
            "Delay before the log manager's periodic tasks first run.")
        .accepts(
            "compression.type",
            STRING,
            TopicCompression.PRODUCER.configValue(),
            ConfigDef.ValidString.in("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
            HIGH,
            "Codec batches are stored with (default of the topic config of the same name).")
        .accepts(
            TopicConfig.COMPRESSION_GZIP_LEVEL_CONFIG,
            INT,
            LogConfig.DEFAULT_GZIP_LEVEL,
            TopicConfigs.configDef()
                .configKeys()
                .get(TopicConfig.COMPRESSION_GZIP_LEVEL_CONFIG)
                .validator,
            MEDIUM,
            "gzip level when the broker compresses; -1 is the codec's default.")
        .accepts(
            TopicConfig.COMPRESSION_LZ4_LEVEL_CONFIG,
            INT,
            LogConfig.DEFAULT_LZ4_LEVEL,
            between(1, 17),
            MEDIUM,
            "lz4 level when the broker compresses.")
        .accepts(
            TopicConfig.COMPRESSION_ZSTD_LEVEL_CONFIG,
            INT,
            LogConfig.DEFAULT_ZSTD_LEVEL,
            between(-(1 << 17), 22),
            MEDIUM,
            "zstd level when the broker compresses.");
  }
}
