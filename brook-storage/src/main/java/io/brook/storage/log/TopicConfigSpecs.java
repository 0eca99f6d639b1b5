package io.brook.storage.log;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ObjDoubleConsumer;
import java.util.function.ObjIntConsumer;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Validator;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.TimestampType;

/**
 * The definitions behind {@link TopicConfigs}: every topic config's name, type, default, validator,
 * broker synonyms, and how it reads from and writes into a {@link LogConfig}, in one list.
 */
final class TopicConfigSpecs {
  private TopicConfigSpecs() {}

  static final int GZIP_MIN_LEVEL = 1;
  static final int GZIP_MAX_LEVEL = 9;
  static final int LZ4_MIN_LEVEL = 1;
  static final int LZ4_MAX_LEVEL = 17;
  static final int ZSTD_MIN_LEVEL = -(1 << 17);
  static final int ZSTD_MAX_LEVEL = 22;

  /** Kafka 4.0 raised the {@code segment.bytes} minimum from 14 bytes to 1 MiB (KIP-1030). */
  static final int MIN_SEGMENT_BYTES = 1024 * 1024;

  static final String LEADER_THROTTLED = "leader.replication.throttled.replicas";
  static final String FOLLOWER_THROTTLED = "follower.replication.throttled.replicas";

  /** Brook's own topic config: see {@link LogConfig#retentionDeadlineEnable()}. */
  static final String RETENTION_DEADLINE_ENABLE = "retention.deadline.enable";

  /**
   * The topic configs the storage engine enforces today. The others are accepted, validated, stored
   * and described, and wait for the feature that acts on them (replication, tiered storage,
   * recompression).
   */
  static final Set<String> USED_BY_BROOK =
      Set.of(
          TopicConfig.SEGMENT_BYTES_CONFIG,
          TopicConfig.SEGMENT_MS_CONFIG,
          TopicConfig.SEGMENT_INDEX_BYTES_CONFIG,
          TopicConfig.INDEX_INTERVAL_BYTES_CONFIG,
          TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
          TopicConfig.FLUSH_MESSAGES_INTERVAL_CONFIG,
          TopicConfig.FLUSH_MS_CONFIG,
          TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
          TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
          TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG,
          TopicConfig.CLEANUP_POLICY_CONFIG,
          TopicConfig.RETENTION_MS_CONFIG,
          TopicConfig.RETENTION_BYTES_CONFIG,
          RETENTION_DEADLINE_ENABLE,
          TopicConfig.FILE_DELETE_DELAY_MS_CONFIG,
          TopicConfig.DELETE_RETENTION_MS_CONFIG,
          TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG,
          TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG,
          TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG,
          TopicConfig.REMOTE_LOG_STORAGE_ENABLE_CONFIG,
          TopicConfig.LOCAL_LOG_RETENTION_MS_CONFIG,
          TopicConfig.LOCAL_LOG_RETENTION_BYTES_CONFIG,
          TopicConfig.REMOTE_LOG_COPY_DISABLE_CONFIG,
          TopicConfig.REMOTE_LOG_DELETE_ON_DISABLE_CONFIG);

  static final List<Spec> SPECS =
      List.of(
          intSpec(
              TopicConfig.SEGMENT_BYTES_CONFIG,
              LogConfig.DEFAULT_SEGMENT_BYTES,
              atLeast(MIN_SEGMENT_BYTES),
              "Size in bytes at which the active segment file is closed and a new one started.",
              List.of("log.segment.bytes"),
              LogConfig::segmentBytes,
              LogConfig.Builder::segmentBytes),
          longSpec(
              TopicConfig.SEGMENT_MS_CONFIG,
              LogConfig.DEFAULT_SEGMENT_MS,
              atLeast(1),
              "Age in ms after which the active segment is rolled even if not full, so retention"
                  + " and compaction can reach its records.",
              List.of("log.roll.ms", "log.roll.hours"),
              LogConfig::segmentMs,
              LogConfig.Builder::segmentMs),
          longSpec(
              TopicConfig.SEGMENT_JITTER_MS_CONFIG,
              0,
              atLeast(0),
              "Upper bound of a random amount subtracted from segment.ms for each segment, to"
                  + " spread rolls over time.",
              List.of("log.roll.jitter.ms", "log.roll.jitter.hours"),
              LogConfig::segmentJitterMs,
              LogConfig.Builder::segmentJitterMs),
          intSpec(
              TopicConfig.SEGMENT_INDEX_BYTES_CONFIG,
              LogConfig.DEFAULT_SEGMENT_INDEX_BYTES,
              atLeast(4),
              "Preallocated size in bytes of each segment's offset and time index; a full index"
                  + " rolls the segment.",
              List.of("log.index.size.max.bytes"),
              LogConfig::segmentIndexBytes,
              LogConfig.Builder::segmentIndexBytes),
          longSpec(
              TopicConfig.FLUSH_MESSAGES_INTERVAL_CONFIG,
              Long.MAX_VALUE,
              atLeast(1),
              "Force an fsync after this many records have been appended since the last one.",
              List.of("log.flush.interval.messages"),
              LogConfig::flushMessages,
              LogConfig.Builder::flushMessages),
          longSpec(
              TopicConfig.FLUSH_MS_CONFIG,
              Long.MAX_VALUE,
              atLeast(0),
              "Force an fsync when the oldest unflushed record is this many ms old.",
              List.of("log.flush.interval.ms", "log.flush.scheduler.interval.ms"),
              LogConfig::flushMs,
              LogConfig.Builder::flushMs),
          longSpec(
              TopicConfig.RETENTION_BYTES_CONFIG,
              LogConfig.UNLIMITED,
              null,
              "Largest size in bytes a partition may reach before its oldest segments are deleted"
                  + " (delete policy); -1 means no size limit.",
              List.of("log.retention.bytes"),
              LogConfig::retentionBytes,
              LogConfig.Builder::retentionBytes),
          longSpec(
              TopicConfig.RETENTION_MS_CONFIG,
              LogConfig.DEFAULT_RETENTION_MS,
              atLeast(LogConfig.UNLIMITED),
              "How long in ms a closed segment is kept after its newest record (delete policy);"
                  + " -1 keeps data forever.",
              List.of("log.retention.ms", "log.retention.minutes", "log.retention.hours"),
              LogConfig::retentionMs,
              LogConfig.Builder::retentionMs),
          booleanSpec(
              RETENTION_DEADLINE_ENABLE,
              false,
              "Brook only: check this topic's retention twice per log.retention.check.interval.ms"
                  + " and roll its segments at half that span of record time, so that no record"
                  + " outlives retention.ms by more than one check interval (without it, by up to"
                  + " segment.ms).",
              List.of(),
              LogConfig::retentionDeadlineEnable,
              LogConfig.Builder::retentionDeadlineEnable),
          intSpec(
              TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
              LogConfig.DEFAULT_MAX_MESSAGE_BYTES,
              atLeast(0),
              "Largest record batch in bytes, after compression, the topic accepts.",
              List.of("message.max.bytes"),
              LogConfig::maxMessageBytes,
              LogConfig.Builder::maxMessageBytes),
          intSpec(
              TopicConfig.INDEX_INTERVAL_BYTES_CONFIG,
              LogConfig.DEFAULT_INDEX_INTERVAL_BYTES,
              atLeast(0),
              "Bytes of log between two entries of the sparse offset and time indexes.",
              List.of("log.index.interval.bytes"),
              LogConfig::indexIntervalBytes,
              LogConfig.Builder::indexIntervalBytes),
          longSpec(
              TopicConfig.DELETE_RETENTION_MS_CONFIG,
              LogConfig.DEFAULT_DELETE_RETENTION_MS,
              atLeast(0),
              "How long in ms tombstones stay readable in a compacted topic before compaction"
                  + " removes them.",
              List.of("log.cleaner.delete.retention.ms"),
              LogConfig::deleteRetentionMs,
              LogConfig.Builder::deleteRetentionMs),
          longSpec(
              TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG,
              0,
              atLeast(0),
              "Records younger than this many ms are never compacted away.",
              List.of("log.cleaner.min.compaction.lag.ms"),
              LogConfig::minCompactionLagMs,
              LogConfig.Builder::minCompactionLagMs),
          longSpec(
              TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG,
              Long.MAX_VALUE,
              atLeast(1),
              "Records older than this many ms become eligible for compaction whatever the"
                  + " dirty ratio.",
              List.of("log.cleaner.max.compaction.lag.ms"),
              LogConfig::maxCompactionLagMs,
              LogConfig.Builder::maxCompactionLagMs),
          longSpec(
              TopicConfig.FILE_DELETE_DELAY_MS_CONFIG,
              LogConfig.DEFAULT_FILE_DELETE_DELAY_MS,
              atLeast(0),
              "Delay in ms between removing a segment from the log and deleting its files.",
              List.of("log.segment.delete.delay.ms"),
              LogConfig::fileDeleteDelayMs,
              LogConfig.Builder::fileDeleteDelayMs),
          doubleSpec(
              TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG,
              LogConfig.DEFAULT_MIN_CLEANABLE_DIRTY_RATIO,
              between(0, 1),
              "Compaction starts when this share of the log has not been compacted yet.",
              List.of("log.cleaner.min.cleanable.ratio"),
              LogConfig::minCleanableDirtyRatio,
              LogConfig.Builder::minCleanableDirtyRatio),
          new Spec(
              TopicConfig.CLEANUP_POLICY_CONFIG,
              Type.LIST,
              TopicConfig.CLEANUP_POLICY_DELETE,
              ConfigDef.ValidList.in(
                  TopicConfig.CLEANUP_POLICY_COMPACT, TopicConfig.CLEANUP_POLICY_DELETE),
              "delete removes old segments by time and size, compact keeps the latest record per"
                  + " key; both may be listed; an empty list keeps everything.",
              List.of("log.cleanup.policy"),
              c -> new ArrayList<>(c.cleanupPolicy()),
              (b, v) -> b.cleanupPolicy(TopicConfigs.strings(v))),
          booleanSpec(
              TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG,
              false,
              "Let a replica outside the ISR become leader when no in-sync replica is left,"
                  + " accepting data loss.",
              List.of("unclean.leader.election.enable"),
              LogConfig::uncleanLeaderElectionEnable,
              LogConfig.Builder::uncleanLeaderElectionEnable),
          intSpec(
              TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
              1,
              atLeast(1),
              "In-sync replicas that must hold an acks=all write before it is acknowledged.",
              List.of("min.insync.replicas"),
              LogConfig::minInSyncReplicas,
              LogConfig.Builder::minInSyncReplicas),
          new Spec(
              TopicConfig.COMPRESSION_TYPE_CONFIG,
              Type.STRING,
              TopicCompression.PRODUCER.configValue(),
              ConfigDef.ValidString.in("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
              "Codec batches are stored with; producer keeps the producer's codec, uncompressed"
                  + " stores them without one.",
              List.of("compression.type"),
              c -> c.compressionType().configValue(),
              (b, v) -> b.compressionType(TopicCompression.forConfigValue((String) v))),
          intSpec(
              TopicConfig.COMPRESSION_GZIP_LEVEL_CONFIG,
              LogConfig.DEFAULT_GZIP_LEVEL,
              gzipLevel(),
              "Level used when the broker compresses with gzip.",
              List.of("compression.gzip.level"),
              LogConfig::compressionGzipLevel,
              LogConfig.Builder::compressionGzipLevel),
          intSpec(
              TopicConfig.COMPRESSION_LZ4_LEVEL_CONFIG,
              LogConfig.DEFAULT_LZ4_LEVEL,
              between(LZ4_MIN_LEVEL, LZ4_MAX_LEVEL),
              "Level used when the broker compresses with lz4.",
              List.of("compression.lz4.level"),
              LogConfig::compressionLz4Level,
              LogConfig.Builder::compressionLz4Level),
          intSpec(
              TopicConfig.COMPRESSION_ZSTD_LEVEL_CONFIG,
              LogConfig.DEFAULT_ZSTD_LEVEL,
              between(ZSTD_MIN_LEVEL, ZSTD_MAX_LEVEL),
              "Level used when the broker compresses with zstd.",
              List.of("compression.zstd.level"),
              LogConfig::compressionZstdLevel,
              LogConfig.Builder::compressionZstdLevel),
          booleanSpec(
              TopicConfig.PREALLOCATE_CONFIG,
              false,
              "Create each new segment file at its full size up front.",
              List.of("log.preallocate"),
              LogConfig::preallocate,
              LogConfig.Builder::preallocate),
          new Spec(
              TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
              Type.STRING,
              TimestampType.CREATE_TIME.name,
              ConfigDef.ValidString.in(
                  TimestampType.CREATE_TIME.name, TimestampType.LOG_APPEND_TIME.name),
              "CreateTime keeps the producer's record timestamps, LogAppendTime replaces them with"
                  + " the broker's clock.",
              List.of("log.message.timestamp.type"),
              c -> c.timestampType().name,
              (b, v) -> b.timestampType(TimestampType.forName((String) v))),
          longSpec(
              TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
              Long.MAX_VALUE,
              atLeast(0),
              "With CreateTime, reject batches whose timestamp is more than this many ms behind"
                  + " the broker's clock.",
              List.of("log.message.timestamp.before.max.ms"),
              LogConfig::timestampBeforeMaxMs,
              LogConfig.Builder::timestampBeforeMaxMs),
          longSpec(
              TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG,
              LogConfig.DEFAULT_TIMESTAMP_AFTER_MAX_MS,
              atLeast(0),
              "With CreateTime, reject batches whose timestamp is more than this many ms ahead of"
                  + " the broker's clock.",
              List.of("log.message.timestamp.after.max.ms"),
              LogConfig::timestampAfterMaxMs,
              LogConfig.Builder::timestampAfterMaxMs),
          new Spec(
              LEADER_THROTTLED,
              Type.LIST,
              "",
              throttledReplicas(),
              "Replicas (partition:broker pairs, or *) whose replication is throttled on the"
                  + " leader side.",
              List.of(),
              LogConfig::leaderReplicationThrottledReplicas,
              (b, v) -> b.leaderReplicationThrottledReplicas(TopicConfigs.strings(v))),
          new Spec(
              FOLLOWER_THROTTLED,
              Type.LIST,
              "",
              throttledReplicas(),
              "Replicas (partition:broker pairs, or *) whose replication is throttled on the"
                  + " follower side.",
              List.of(),
              LogConfig::followerReplicationThrottledReplicas,
              (b, v) -> b.followerReplicationThrottledReplicas(TopicConfigs.strings(v))),
          booleanSpec(
              TopicConfig.REMOTE_LOG_STORAGE_ENABLE_CONFIG,
              false,
              "Copy closed segments to remote (tiered) storage and serve old reads from there.",
              List.of(),
              LogConfig::remoteStorageEnable,
              LogConfig.Builder::remoteStorageEnable),
          longSpec(
              TopicConfig.LOCAL_LOG_RETENTION_MS_CONFIG,
              LogConfig.LOCAL_RETENTION_FROM_RETENTION,
              atLeast(LogConfig.LOCAL_RETENTION_FROM_RETENTION),
              "With tiered storage, how long in ms segments stay on local disk; -2 means"
                  + " retention.ms.",
              List.of("log.local.retention.ms"),
              LogConfig::localRetentionMs,
              LogConfig.Builder::localRetentionMs),
          longSpec(
              TopicConfig.LOCAL_LOG_RETENTION_BYTES_CONFIG,
              LogConfig.LOCAL_RETENTION_FROM_RETENTION,
              atLeast(LogConfig.LOCAL_RETENTION_FROM_RETENTION),
              "With tiered storage, how many bytes per partition stay on local disk; -2 means"
                  + " retention.bytes.",
              List.of("log.local.retention.bytes"),
              LogConfig::localRetentionBytes,
              LogConfig.Builder::localRetentionBytes),
          booleanSpec(
              TopicConfig.REMOTE_LOG_COPY_DISABLE_CONFIG,
              false,
              "Stop copying new segments to remote storage while still reading the ones there.",
              List.of(),
              LogConfig::remoteLogCopyDisable,
              LogConfig.Builder::remoteLogCopyDisable),
          booleanSpec(
              TopicConfig.REMOTE_LOG_DELETE_ON_DISABLE_CONFIG,
              false,
              "Delete the topic's remote data when remote.storage.enable is turned off.",
              List.of(),
              LogConfig::remoteLogDeleteOnDisable,
              LogConfig.Builder::remoteLogDeleteOnDisable),
          longSpec(
              TopicConfig.REMOTE_COPY_LAG_MS_CONFIG,
              0,
              atLeast(-1),
              "Age in ms a closed segment must reach before it is copied to remote storage; -1"
                  + " means the effective local retention time.",
              List.of(),
              LogConfig::remoteCopyLagMs,
              LogConfig.Builder::remoteCopyLagMs),
          longSpec(
              TopicConfig.REMOTE_COPY_LAG_BYTES_CONFIG,
              0,
              atLeast(-1),
              "Bytes of newer log that must follow a closed segment before it is copied to remote"
                  + " storage; -1 means the effective local retention size.",
              List.of(),
              LogConfig::remoteCopyLagBytes,
              LogConfig.Builder::remoteCopyLagBytes));

  static Validator gzipLevel() {
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          int level = (Integer) value;
          if (level != LogConfig.DEFAULT_GZIP_LEVEL
              && (level < GZIP_MIN_LEVEL || level > GZIP_MAX_LEVEL)) {
            throw new ConfigException(
                name, value, "must be -1 (the codec's default) or between 1 and 9");
          }
        },
        () -> "[" + GZIP_MIN_LEVEL + ",...," + GZIP_MAX_LEVEL + "] or -1");
  }

  /** {@code *}, or a list of {@code partitionId:brokerId} pairs (possibly empty). */
  static Validator throttledReplicas() {
    Predicate<String> pair = s -> s.trim().matches("[0-9]+:[0-9]+");
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          List<String> entries = TopicConfigs.strings(value);
          boolean wildcard = entries.size() == 1 && entries.get(0).trim().equals("*");
          if (!wildcard && !entries.stream().allMatch(pair)) {
            throw new ConfigException(
                name, value, "must be * or a list of partitionId:brokerId pairs");
          }
        },
        () -> "[partitionId]:[brokerId],[partitionId]:[brokerId],... or *");
  }

  static Spec intSpec(
      String name,
      int defaultValue,
      Validator validator,
      String doc,
      List<String> brokerSynonyms,
      ToIntFunction<LogConfig> read,
      ObjIntConsumer<LogConfig.Builder> write) {
    return new Spec(
        name,
        Type.INT,
        defaultValue,
        validator,
        doc,
        brokerSynonyms,
        read::applyAsInt,
        (b, v) -> write.accept(b, (Integer) v));
  }

  static Spec longSpec(
      String name,
      long defaultValue,
      Validator validator,
      String doc,
      List<String> brokerSynonyms,
      ToLongFunction<LogConfig> read,
      ObjLongConsumer<LogConfig.Builder> write) {
    return new Spec(
        name,
        Type.LONG,
        defaultValue,
        validator,
        doc,
        brokerSynonyms,
        read::applyAsLong,
        (b, v) -> write.accept(b, (Long) v));
  }

  static Spec doubleSpec(
      String name,
      double defaultValue,
      Validator validator,
      String doc,
      List<String> brokerSynonyms,
      ToDoubleFunction<LogConfig> read,
      ObjDoubleConsumer<LogConfig.Builder> write) {
    return new Spec(
        name,
        Type.DOUBLE,
        defaultValue,
        validator,
        doc,
        brokerSynonyms,
        read::applyAsDouble,
        (b, v) -> write.accept(b, (Double) v));
  }

  static Spec booleanSpec(
      String name,
      boolean defaultValue,
      String doc,
      List<String> brokerSynonyms,
      Predicate<LogConfig> read,
      BiConsumer<LogConfig.Builder, Boolean> write) {
    return new Spec(
        name,
        Type.BOOLEAN,
        defaultValue,
        null,
        doc,
        brokerSynonyms,
        read::test,
        (b, v) -> write.accept(b, (Boolean) v));
  }

  /**
   * One topic config.
   *
   * @param read the component of {@link LogConfig} as the config's {@link Type} holds it (a {@code
   *     List<String>} for LIST, a {@code String} for STRING).
   * @param write sets the component from a value parsed as the config's {@link Type}.
   */
  record Spec(
      String name,
      Type type,
      Object defaultValue,
      Validator validator,
      String doc,
      List<String> brokerSynonyms,
      Function<LogConfig, Object> read,
      BiConsumer<LogConfig.Builder, Object> write) {

    Spec {
      brokerSynonyms = List.copyOf(brokerSynonyms);
    }
  }
}
