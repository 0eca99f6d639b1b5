package io.brook.storage.log;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;

import io.brook.storage.log.LogConfig.TopicCompression;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Validator;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.record.TimestampType;

/**
 * Every Kafka 4.x topic-level config Brook accepts: name, type, Kafka's default, validator, the
 * broker config that supplies the default, and how it maps onto a {@link LogConfig} component.
 *
 * <p>One table ({@link #SPECS}) drives parsing ({@link #fromOverrides}), printing ({@link
 * #toStrings}) and the {@link ConfigDef} handed to documentation and DescribeConfigs, so a config
 * cannot be parsed but not printed, or documented with a different default.
 *
 * <p>Errors follow Kafka's CreateTopics / AlterConfigs behaviour: an unknown name or an invalid
 * value is an {@link InvalidConfigurationException} whose message names the config and says what is
 * allowed. {@code message.format.version}, {@code message.downconversion.enable} and {@code
 * message.timestamp.difference.max.ms} were removed in Kafka 4.0 and are unknown here too.
 *
 * <p>Not checked here, because they need broker state: whether tiered storage is enabled on the
 * broker ({@code remote.storage.enable=true} on a broker without it is an error in Kafka), and
 * transitions such as turning remote storage off without {@code remote.log.delete.on.disable}.
 */
public final class TopicConfigs {

  /** Kafka 4.0 dropped these; naming one gets a pointed error instead of a bare "unknown". */
  private static final Map<String, String> REMOVED_IN_KAFKA_4 =
      Map.of(
          "message.format.version",
          "it was removed in Kafka 4.0, which writes only record format v2",
          "message.downconversion.enable",
          "it was removed in Kafka 4.0, which no longer down-converts records",
          "message.timestamp.difference.max.ms",
          "it was removed in Kafka 4.0; use message.timestamp.before.max.ms and"
              + " message.timestamp.after.max.ms");

  // Compression level bounds are the codecs' own: java.util.zip.Deflater accepts 1..9 plus -1 for
  // its default; LZ4 high-compression mode 1..17; zstd from ZSTD_minCLevel() = -(1 << 17) to 22.
  private static final int GZIP_MIN_LEVEL = 1;
  private static final int GZIP_MAX_LEVEL = 9;
  private static final int LZ4_MIN_LEVEL = 1;
  private static final int LZ4_MAX_LEVEL = 17;
  private static final int ZSTD_MIN_LEVEL = -(1 << 17);
  private static final int ZSTD_MAX_LEVEL = 22;

  /** Kafka 4.0 raised the {@code segment.bytes} minimum from 14 bytes to 1 MiB (KIP-1030). */
  private static final int MIN_SEGMENT_BYTES = 1024 * 1024;

  private static final String LEADER_THROTTLED = "leader.replication.throttled.replicas";
  private static final String FOLLOWER_THROTTLED = "follower.replication.throttled.replicas";

  /**
   * The topic configs the storage engine enforces today. The others are accepted, validated, stored
   * and described, and wait for the feature that acts on them (retention, compaction, replication,
   * tiered storage, recompression).
   */
  private static final Set<String> USED_BY_BROOK =
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
          TopicConfig.CLEANUP_POLICY_CONFIG);

  private static final List<Spec> SPECS =
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
              (b, v) -> b.cleanupPolicy(strings(v))),
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
              (b, v) -> b.leaderReplicationThrottledReplicas(strings(v))),
          new Spec(
              FOLLOWER_THROTTLED,
              Type.LIST,
              "",
              throttledReplicas(),
              "Replicas (partition:broker pairs, or *) whose replication is throttled on the"
                  + " follower side.",
              List.of(),
              LogConfig::followerReplicationThrottledReplicas,
              (b, v) -> b.followerReplicationThrottledReplicas(strings(v))),
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

  private static final Map<String, Spec> BY_NAME = index(SPECS);

  private static final ConfigDef CONFIG_DEF = configDefOf(SPECS);

  private TopicConfigs() {}

  /**
   * The topic's effective settings: {@code brokerDefaults} with {@code topicOverrides} applied.
   *
   * @param topicOverrides Kafka topic config names to values as a client sends them (for example in
   *     CreateTopics or AlterConfigs).
   * @param brokerDefaults the broker's defaults for every topic config; usually {@code
   *     BrokerConfig.defaultLogConfig()}.
   * @throws InvalidConfigurationException naming the config, for an unknown name, a null or
   *     unparsable value, a value outside the allowed range, or an inconsistent combination.
   */
  public static LogConfig fromOverrides(
      Map<String, String> topicOverrides, LogConfig brokerDefaults) {
    Objects.requireNonNull(brokerDefaults, "brokerDefaults");
    LogConfig.Builder builder = brokerDefaults.toBuilder();
    for (Map.Entry<String, String> override : sorted(topicOverrides).entrySet()) {
      Spec spec = specFor(override.getKey());
      spec.write().accept(builder, parse(spec, override.getValue()));
    }
    LogConfig config;
    try {
      config = builder.build();
    } catch (IllegalArgumentException e) {
      throw new InvalidConfigurationException(e.getMessage(), e);
    }
    checkCombination(config);
    return config;
  }

  /**
   * Checks topic overrides against Kafka's defaults.
   *
   * @throws InvalidConfigurationException as {@link #fromOverrides} does.
   */
  public static void validate(Map<String, String> topicOverrides) {
    fromOverrides(topicOverrides, LogConfig.defaults());
  }

  /**
   * Every topic config of {@code config}, by name in alphabetical order, printed as Kafka prints it
   * in DescribeConfigs (lists comma-separated, timestamp type as {@code CreateTime}).
   */
  public static Map<String, String> toStrings(LogConfig config) {
    Map<String, String> out = new TreeMap<>();
    for (Spec spec : SPECS) {
      out.put(spec.name(), ConfigDef.convertToString(spec.read().apply(config), spec.type()));
    }
    return Collections.unmodifiableMap(out);
  }

  /** Every accepted topic config name, in alphabetical order. */
  public static Set<String> names() {
    return Collections.unmodifiableSet(new TreeSet<>(BY_NAME.keySet()));
  }

  /** Whether {@code name} is a topic config Brook accepts. */
  public static boolean isKnown(String name) {
    return BY_NAME.containsKey(name);
  }

  /** Topic configs hold no secrets, so this is always false; kept for DescribeConfigs. */
  public static boolean isSensitive(String name) {
    return false;
  }

  /**
   * @throws IllegalArgumentException if {@code name} is not a topic config.
   */
  public static Type type(String name) {
    return known(name).type();
  }

  /**
   * A one-line description of the config.
   *
   * @throws IllegalArgumentException if {@code name} is not a topic config.
   */
  public static String documentation(String name) {
    return known(name).doc();
  }

  /**
   * Kafka's default for the config, as DescribeConfigs prints it.
   *
   * @throws IllegalArgumentException if {@code name} is not a topic config.
   */
  public static String defaultValue(String name) {
    Spec spec = known(name);
    return ConfigDef.convertToString(
        ConfigDef.parseType(name, spec.defaultValue(), spec.type()), spec.type());
  }

  /** Whether the storage engine acts on the config today (as opposed to storing it). */
  public static boolean usedByBrook(String name) {
    known(name);
    return USED_BY_BROOK.contains(name);
  }

  /**
   * The broker config whose value is this topic config's default, for DescribeConfigs synonyms:
   * {@code retention.ms} ← {@code log.retention.ms}, {@code max.message.bytes} ← {@code
   * message.max.bytes}, ... Empty for configs with no broker-level default, such as {@code
   * remote.storage.enable}.
   */
  public static Optional<String> brokerSynonym(String topicName) {
    List<String> synonyms = brokerSynonyms(topicName);
    return synonyms.isEmpty() ? Optional.empty() : Optional.of(synonyms.get(0));
  }

  /**
   * All broker configs that can supply this topic config's default, highest priority first: for
   * {@code retention.ms} that is {@code log.retention.ms}, then {@code log.retention.minutes}, then
   * {@code log.retention.hours}. Names ending in {@code .minutes} or {@code .hours} hold the value
   * in that unit. Empty for unknown names.
   */
  public static List<String> brokerSynonyms(String topicName) {
    Spec spec = BY_NAME.get(topicName);
    return spec == null ? List.of() : spec.brokerSynonyms();
  }

  /** A copy of the {@link ConfigDef} behind these configs, for documentation and describing. */
  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG_DEF);
  }

  private static Map<String, String> sorted(Map<String, String> overrides) {
    Objects.requireNonNull(overrides, "topicOverrides");
    Map<String, String> sorted = new TreeMap<>();
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      if (e.getKey() == null) {
        throw new InvalidConfigurationException("A topic config name must not be null");
      }
      sorted.put(e.getKey(), e.getValue());
    }
    return sorted;
  }

  private static Spec specFor(String name) {
    Spec spec = BY_NAME.get(name);
    if (spec != null) {
      return spec;
    }
    String removed = REMOVED_IN_KAFKA_4.get(name);
    if (removed != null) {
      throw new InvalidConfigurationException(
          "Unknown topic config name: " + name + " (" + removed + ")");
    }
    throw new InvalidConfigurationException(
        "Unknown topic config name: "
            + name
            + " (valid names: "
            + String.join(", ", names())
            + ")");
  }

  private static Spec known(String name) {
    Spec spec = BY_NAME.get(name);
    if (spec == null) {
      throw new IllegalArgumentException("Not a topic config: " + name);
    }
    return spec;
  }

  private static Object parse(Spec spec, String value) {
    if (value == null) {
      throw new InvalidConfigurationException(
          "Invalid value null for configuration " + spec.name() + ": a value is required");
    }
    try {
      Object parsed = ConfigDef.parseType(spec.name(), value, spec.type());
      if (spec.validator() != null) {
        spec.validator().ensureValid(spec.name(), parsed);
      }
      return parsed;
    } catch (ConfigException e) {
      throw new InvalidConfigurationException(e.getMessage(), e);
    }
  }

  /** Rules between configs, as Kafka checks them when a topic is created or altered. */
  private static void checkCombination(LogConfig c) {
    if (c.minCompactionLagMs() > c.maxCompactionLagMs()) {
      throw invalid(
          TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG,
          c.minCompactionLagMs(),
          "must not exceed "
              + TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG
              + " ("
              + c.maxCompactionLagMs()
              + ")");
    }
    if (!c.remoteStorageEnable()) {
      return;
    }
    if (!c.cleanupPolicy().isEmpty()
        && !c.cleanupPolicy().equals(Set.of(TopicConfig.CLEANUP_POLICY_DELETE))) {
      throw invalid(
          TopicConfig.CLEANUP_POLICY_CONFIG,
          String.join(",", c.cleanupPolicy()),
          "a topic with remote.storage.enable=true must use delete or an empty list");
    }
    checkLocalRetention(
        TopicConfig.LOCAL_LOG_RETENTION_BYTES_CONFIG,
        c.localRetentionBytes(),
        TopicConfig.RETENTION_BYTES_CONFIG,
        c.retentionBytes());
    checkLocalRetention(
        TopicConfig.LOCAL_LOG_RETENTION_MS_CONFIG,
        c.localRetentionMs(),
        TopicConfig.RETENTION_MS_CONFIG,
        c.retentionMs());
    checkCopyLag(
        TopicConfig.REMOTE_COPY_LAG_MS_CONFIG,
        c.remoteCopyLagMs(),
        TopicConfig.LOCAL_LOG_RETENTION_MS_CONFIG,
        c.effectiveLocalRetentionMs());
    checkCopyLag(
        TopicConfig.REMOTE_COPY_LAG_BYTES_CONFIG,
        c.remoteCopyLagBytes(),
        TopicConfig.LOCAL_LOG_RETENTION_BYTES_CONFIG,
        c.effectiveLocalRetentionBytes());
    if (c.remoteLogCopyDisable()) {
      checkSameAsRetention(
          TopicConfig.LOCAL_LOG_RETENTION_BYTES_CONFIG,
          c.localRetentionBytes(),
          TopicConfig.RETENTION_BYTES_CONFIG,
          c.retentionBytes());
      checkSameAsRetention(
          TopicConfig.LOCAL_LOG_RETENTION_MS_CONFIG,
          c.localRetentionMs(),
          TopicConfig.RETENTION_MS_CONFIG,
          c.retentionMs());
    }
  }

  /** Local retention may not be unlimited, or exceed the total, when the total is limited. */
  private static void checkLocalRetention(
      String localName, long local, String totalName, long total) {
    if (total == LogConfig.UNLIMITED || local == LogConfig.LOCAL_RETENTION_FROM_RETENTION) {
      return;
    }
    if (local == LogConfig.UNLIMITED) {
      throw invalid(localName, local, "must not be -1 while " + totalName + " is " + total);
    }
    if (local > total) {
      throw invalid(localName, local, "must not exceed " + totalName + " (" + total + ")");
    }
  }

  /** A positive copy lag may not exceed a limited local retention. */
  private static void checkCopyLag(
      String lagName, long lag, String localName, long effectiveLocal) {
    if (lag > 0 && effectiveLocal >= 0 && lag > effectiveLocal) {
      throw invalid(
          lagName, lag, "must not exceed the effective " + localName + " (" + effectiveLocal + ")");
    }
  }

  /** With copying disabled nothing new reaches remote storage, so local must keep everything. */
  private static void checkSameAsRetention(
      String localName, long local, String totalName, long total) {
    if (local != LogConfig.LOCAL_RETENTION_FROM_RETENTION && local != total) {
      throw invalid(
          localName,
          local,
          "must equal "
              + totalName
              + " ("
              + total
              + ") or be -2 when remote.log.copy.disable=true");
    }
  }

  private static InvalidConfigurationException invalid(String name, Object value, String why) {
    return new InvalidConfigurationException(
        "Invalid value " + value + " for configuration " + name + ": " + why);
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(Object parsedList) {
    return (List<String>) parsedList;
  }

  private static Validator gzipLevel() {
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
  private static Validator throttledReplicas() {
    Predicate<String> pair = s -> s.trim().matches("[0-9]+:[0-9]+");
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          List<String> entries = strings(value);
          boolean wildcard = entries.size() == 1 && entries.get(0).trim().equals("*");
          if (!wildcard && !entries.stream().allMatch(pair)) {
            throw new ConfigException(
                name, value, "must be * or a list of partitionId:brokerId pairs");
          }
        },
        () -> "[partitionId]:[brokerId],[partitionId]:[brokerId],... or *");
  }

  private static Map<String, Spec> index(List<Spec> specs) {
    Map<String, Spec> byName = new LinkedHashMap<>();
    for (Spec spec : specs) {
      if (byName.put(spec.name(), spec) != null) {
        throw new IllegalStateException("Topic config defined twice: " + spec.name());
      }
    }
    return Collections.unmodifiableMap(byName);
  }

  private static ConfigDef configDefOf(List<Spec> specs) {
    ConfigDef def = new ConfigDef();
    for (Spec spec : specs) {
      def.define(
          spec.name(),
          spec.type(),
          spec.defaultValue(),
          spec.validator(),
          Importance.MEDIUM,
          spec.doc());
    }
    return def;
  }

  private static Spec intSpec(
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

  private static Spec longSpec(
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

  private static Spec doubleSpec(
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

  private static Spec booleanSpec(
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
  private record Spec(
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
