package io.brook.storage.log;

import io.brook.storage.record.RecordLimits;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.TimestampType;

/**
 * The per-partition settings the log obeys, under Kafka's topic config names and defaults.
 *
 * <p>Every component is one Kafka 4.x topic config. {@link TopicConfigs} parses, validates and
 * prints them under their Kafka names; this record only guards against values no parser would
 * produce. One deliberate leniency: {@code segment.bytes} may be as small as 14 bytes here (tests
 * roll tiny segments), while {@link TopicConfigs} enforces Kafka 4's 1 MiB minimum on user input.
 *
 * @param segmentBytes {@code segment.bytes}: roll the active segment when it would grow past this.
 * @param segmentMs {@code segment.ms}: roll the active segment once it is this old.
 * @param segmentIndexBytes {@code segment.index.bytes}: preallocated size of each index file; a
 *     full index rolls the segment.
 * @param indexIntervalBytes {@code index.interval.bytes}: bytes of log between sparse index
 *     entries.
 * @param maxMessageBytes {@code max.message.bytes}: the largest batch accepted.
 * @param flushMessages {@code flush.messages}: fsync after this many unflushed records.
 * @param flushMs {@code flush.ms}: fsync when the oldest unflushed data is this old.
 * @param timestampType {@code message.timestamp.type}: CreateTime keeps the producer's timestamp,
 *     LogAppendTime stamps the broker's clock.
 * @param timestampBeforeMaxMs {@code message.timestamp.before.max.ms}: how far in the past a
 *     CreateTime timestamp may be.
 * @param timestampAfterMaxMs {@code message.timestamp.after.max.ms}: how far in the future a
 *     CreateTime timestamp may be.
 * @param compacted {@code cleanup.policy} contains {@code compact}: every record needs a key.
 *     Always equal to {@code cleanupPolicy.contains("compact")}.
 * @param retentionMs {@code retention.ms}: delete closed segments whose newest record is older than
 *     this; -1 keeps them forever.
 * @param retentionBytes {@code retention.bytes}: delete the oldest segments while the partition is
 *     larger than this; -1 means no size limit.
 * @param cleanupPolicy {@code cleanup.policy}: any of {@code delete} and {@code compact}, in the
 *     order given; empty (Kafka 4.x) means neither, so data is kept forever.
 * @param deleteRetentionMs {@code delete.retention.ms}: how long tombstones survive compaction.
 * @param minCompactionLagMs {@code min.compaction.lag.ms}: records younger than this are never
 *     compacted.
 * @param maxCompactionLagMs {@code max.compaction.lag.ms}: records older than this are made
 *     eligible for compaction even below the dirty ratio.
 * @param minCleanableDirtyRatio {@code min.cleanable.dirty.ratio}: share of uncompacted log that
 *     triggers compaction.
 * @param fileDeleteDelayMs {@code file.delete.delay.ms}: grace period between unlinking a deleted
 *     segment from the log and removing its files.
 * @param segmentJitterMs {@code segment.jitter.ms}: up to this much is subtracted at random from
 *     {@code segment.ms} per segment, so partitions do not all roll at once.
 * @param preallocate {@code preallocate}: create segment files at their full size.
 * @param minInSyncReplicas {@code min.insync.replicas}: replicas that must have an acks=all write
 *     before it is acknowledged.
 * @param uncleanLeaderElectionEnable {@code unclean.leader.election.enable}: allow an out-of-sync
 *     replica to become leader, losing data, rather than stay offline.
 * @param compressionType {@code compression.type}: the codec batches are stored with.
 * @param compressionGzipLevel {@code compression.gzip.level}: used when recompressing to gzip.
 * @param compressionLz4Level {@code compression.lz4.level}: used when recompressing to lz4.
 * @param compressionZstdLevel {@code compression.zstd.level}: used when recompressing to zstd.
 * @param localRetentionMs {@code local.retention.ms}: local-disk retention for tiered topics; -2
 *     means {@code retentionMs}.
 * @param localRetentionBytes {@code local.retention.bytes}: local-disk size limit for tiered
 *     topics; -2 means {@code retentionBytes}.
 * @param remoteStorageEnable {@code remote.storage.enable}: copy closed segments to remote storage.
 * @param remoteLogCopyDisable {@code remote.log.copy.disable}: stop copying new segments but keep
 *     serving the remote ones.
 * @param remoteLogDeleteOnDisable {@code remote.log.delete.on.disable}: delete remote data when
 *     remote storage is turned off.
 * @param remoteCopyLagMs {@code remote.copy.lag.ms}: how old a closed segment must be before it is
 *     copied; -1 means the effective local retention time.
 * @param remoteCopyLagBytes {@code remote.copy.lag.bytes}: how much newer data must follow a closed
 *     segment before it is copied; -1 means the effective local retention size.
 * @param leaderReplicationThrottledReplicas {@code leader.replication.throttled.replicas}: {@code
 *     partition:broker} pairs (or {@code *}) whose replication the leader throttles; kept as given.
 * @param followerReplicationThrottledReplicas {@code follower.replication.throttled.replicas}: the
 *     same on the follower side; kept as given.
 * @param retentionDeadlineEnable {@code retention.deadline.enable} (Brook only): roll segments
 *     early enough that no record outlives {@code retention.ms} by more than the retention check
 *     interval, see {@code LogRetention#effectiveSegmentMs}.
 * @param maxInflatedBytesFactor {@code brook.max.inflated.bytes.factor} (Brook only, broker-wide,
 *     not a topic config): the records of one batch may inflate to at most {@code maxMessageBytes}
 *     times this when decompressed; see {@link #recordLimits()}.
 */
public record LogConfig(
    int segmentBytes,
    long segmentMs,
    int segmentIndexBytes,
    int indexIntervalBytes,
    int maxMessageBytes,
    long flushMessages,
    long flushMs,
    TimestampType timestampType,
    long timestampBeforeMaxMs,
    long timestampAfterMaxMs,
    boolean compacted,
    long retentionMs,
    long retentionBytes,
    Set<String> cleanupPolicy,
    long deleteRetentionMs,
    long minCompactionLagMs,
    long maxCompactionLagMs,
    double minCleanableDirtyRatio,
    long fileDeleteDelayMs,
    long segmentJitterMs,
    boolean preallocate,
    int minInSyncReplicas,
    boolean uncleanLeaderElectionEnable,
    TopicCompression compressionType,
    int compressionGzipLevel,
    int compressionLz4Level,
    int compressionZstdLevel,
    long localRetentionMs,
    long localRetentionBytes,
    boolean remoteStorageEnable,
    boolean remoteLogCopyDisable,
    boolean remoteLogDeleteOnDisable,
    long remoteCopyLagMs,
    long remoteCopyLagBytes,
    List<String> leaderReplicationThrottledReplicas,
    List<String> followerReplicationThrottledReplicas,
    boolean retentionDeadlineEnable,
    int maxInflatedBytesFactor) {

  /** Kafka's {@code segment.bytes} default: 1 GiB. */
  public static final int DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024;

  /** Kafka's {@code segment.ms} default: 7 days. */
  public static final long DEFAULT_SEGMENT_MS = 7L * 24 * 60 * 60 * 1000;

  /** Kafka's {@code segment.index.bytes} default: 10 MiB. */
  public static final int DEFAULT_SEGMENT_INDEX_BYTES = 10 * 1024 * 1024;

  /** Kafka's {@code index.interval.bytes} default: one index entry per 4 KiB of log. */
  public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;

  /** Kafka's {@code max.message.bytes} default: 1 MiB plus the 12-byte log overhead. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12;

  /** Kafka 4's {@code message.timestamp.after.max.ms} default: one hour. */
  public static final long DEFAULT_TIMESTAMP_AFTER_MAX_MS = 60L * 60 * 1000;

  /** Kafka's {@code retention.ms} default: 7 days. */
  public static final long DEFAULT_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;

  /** {@code retention.ms} / {@code retention.bytes} value meaning "no limit". */
  public static final long UNLIMITED = -1;

  /** {@code local.retention.*} value meaning "same as the overall retention". */
  public static final long LOCAL_RETENTION_FROM_RETENTION = -2;

  /** Kafka's {@code delete.retention.ms} default: one day. */
  public static final long DEFAULT_DELETE_RETENTION_MS = 24L * 60 * 60 * 1000;

  /** Kafka's {@code min.cleanable.dirty.ratio} default. */
  public static final double DEFAULT_MIN_CLEANABLE_DIRTY_RATIO = 0.5;

  /** Kafka's {@code file.delete.delay.ms} default: one minute. */
  public static final long DEFAULT_FILE_DELETE_DELAY_MS = 60_000;

  /** {@code compression.gzip.level} default: -1 asks {@code java.util.zip.Deflater} for its own. */
  public static final int DEFAULT_GZIP_LEVEL = -1;

  /** {@code compression.lz4.level} default: 9, the lowest LZ4 HC level (1..17). */
  public static final int DEFAULT_LZ4_LEVEL = 9;

  /** {@code compression.zstd.level} default: 3, zstd's own default level. */
  public static final int DEFAULT_ZSTD_LEVEL = 3;

  /** Kafka's {@code cleanup.policy} default. */
  public static final Set<String> DEFAULT_CLEANUP_POLICY =
      Set.of(TopicConfig.CLEANUP_POLICY_DELETE);

  private static final Set<String> CLEANUP_POLICIES =
      Set.of(TopicConfig.CLEANUP_POLICY_DELETE, TopicConfig.CLEANUP_POLICY_COMPACT);

  public LogConfig {
    if (segmentBytes < 14) {
      throw new IllegalArgumentException("segment.bytes must be at least 14, got " + segmentBytes);
    }
    if (segmentMs < 1) {
      throw new IllegalArgumentException("segment.ms must be at least 1, got " + segmentMs);
    }
    if (segmentIndexBytes < 4) {
      throw new IllegalArgumentException(
          "segment.index.bytes must be at least 4, got " + segmentIndexBytes);
    }
    if (indexIntervalBytes < 0) {
      throw new IllegalArgumentException(
          "index.interval.bytes must be at least 0, got " + indexIntervalBytes);
    }
    if (maxInflatedBytesFactor < 1) {
      throw new IllegalArgumentException(
          "brook.max.inflated.bytes.factor must be at least 1, got " + maxInflatedBytesFactor);
    }
    if (maxMessageBytes < 0) {
      throw new IllegalArgumentException(
          "max.message.bytes must be at least 0, got " + maxMessageBytes);
    }
    if (flushMessages < 1 || flushMs < 0) {
      throw new IllegalArgumentException("flush.messages must be >= 1 and flush.ms >= 0");
    }
    if (timestampType != TimestampType.CREATE_TIME
        && timestampType != TimestampType.LOG_APPEND_TIME) {
      throw new IllegalArgumentException(
          "message.timestamp.type must be CreateTime or LogAppendTime");
    }
    if (timestampBeforeMaxMs < 0 || timestampAfterMaxMs < 0) {
      throw new IllegalArgumentException("message.timestamp.*.max.ms must be >= 0");
    }
    cleanupPolicy = copyPolicy(cleanupPolicy);
    if (compacted != cleanupPolicy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
      throw new IllegalArgumentException(
          "compacted=" + compacted + " contradicts cleanup.policy=" + cleanupPolicy);
    }
    if (retentionMs < UNLIMITED) {
      throw new IllegalArgumentException("retention.ms must be at least -1, got " + retentionMs);
    }
    if (deleteRetentionMs < 0 || minCompactionLagMs < 0 || maxCompactionLagMs < 1) {
      throw new IllegalArgumentException(
          "delete.retention.ms and min.compaction.lag.ms must be >= 0, max.compaction.lag.ms >= 1");
    }
    if (!(minCleanableDirtyRatio >= 0 && minCleanableDirtyRatio <= 1)) {
      throw new IllegalArgumentException(
          "min.cleanable.dirty.ratio must be in [0, 1], got " + minCleanableDirtyRatio);
    }
    if (fileDeleteDelayMs < 0 || segmentJitterMs < 0) {
      throw new IllegalArgumentException("file.delete.delay.ms and segment.jitter.ms must be >= 0");
    }
    if (minInSyncReplicas < 1) {
      throw new IllegalArgumentException(
          "min.insync.replicas must be at least 1, got " + minInSyncReplicas);
    }
    Objects.requireNonNull(compressionType, "compressionType");
    if (localRetentionMs < LOCAL_RETENTION_FROM_RETENTION
        || localRetentionBytes < LOCAL_RETENTION_FROM_RETENTION) {
      throw new IllegalArgumentException(
          "local.retention.ms and local.retention.bytes must be >= -2");
    }
    if (remoteCopyLagMs < -1 || remoteCopyLagBytes < -1) {
      throw new IllegalArgumentException(
          "remote.copy.lag.ms and remote.copy.lag.bytes must be >= -1");
    }
    leaderReplicationThrottledReplicas = List.copyOf(leaderReplicationThrottledReplicas);
    followerReplicationThrottledReplicas = List.copyOf(followerReplicationThrottledReplicas);
  }

  private static Set<String> copyPolicy(Collection<String> policy) {
    Set<String> copy = new LinkedHashSet<>();
    for (String p : policy) {
      String normalised = p.trim().toLowerCase(Locale.ROOT);
      if (!CLEANUP_POLICIES.contains(normalised)) {
        throw new IllegalArgumentException(
            "cleanup.policy entries must be delete or compact: " + p);
      }
      copy.add(normalised);
    }
    return Collections.unmodifiableSet(copy);
  }

  /** Kafka's defaults for every setting. */
  public static LogConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code cleanup.policy} contains {@code delete}: retention removes old segments. */
  public boolean deletes() {
    return cleanupPolicy.contains(TopicConfig.CLEANUP_POLICY_DELETE);
  }

  /** {@code local.retention.ms} with -2 resolved to {@code retention.ms}. */
  public long effectiveLocalRetentionMs() {
    return localRetentionMs == LOCAL_RETENTION_FROM_RETENTION ? retentionMs : localRetentionMs;
  }

  /** {@code local.retention.bytes} with -2 resolved to {@code retention.bytes}. */
  public long effectiveLocalRetentionBytes() {
    return localRetentionBytes == LOCAL_RETENTION_FROM_RETENTION
        ? retentionBytes
        : localRetentionBytes;
  }

  public Builder toBuilder() {
    return new Builder()
        .segmentBytes(segmentBytes)
        .segmentMs(segmentMs)
        .segmentIndexBytes(segmentIndexBytes)
        .indexIntervalBytes(indexIntervalBytes)
        .maxMessageBytes(maxMessageBytes)
        .flushMessages(flushMessages)
        .flushMs(flushMs)
        .timestampType(timestampType)
        .timestampBeforeMaxMs(timestampBeforeMaxMs)
        .timestampAfterMaxMs(timestampAfterMaxMs)
        .cleanupPolicy(cleanupPolicy)
        .retentionMs(retentionMs)
        .retentionBytes(retentionBytes)
        .deleteRetentionMs(deleteRetentionMs)
        .minCompactionLagMs(minCompactionLagMs)
        .maxCompactionLagMs(maxCompactionLagMs)
        .minCleanableDirtyRatio(minCleanableDirtyRatio)
        .fileDeleteDelayMs(fileDeleteDelayMs)
        .segmentJitterMs(segmentJitterMs)
        .preallocate(preallocate)
        .minInSyncReplicas(minInSyncReplicas)
        .uncleanLeaderElectionEnable(uncleanLeaderElectionEnable)
        .compressionType(compressionType)
        .compressionGzipLevel(compressionGzipLevel)
        .compressionLz4Level(compressionLz4Level)
        .compressionZstdLevel(compressionZstdLevel)
        .localRetentionMs(localRetentionMs)
        .localRetentionBytes(localRetentionBytes)
        .remoteStorageEnable(remoteStorageEnable)
        .remoteLogCopyDisable(remoteLogCopyDisable)
        .remoteLogDeleteOnDisable(remoteLogDeleteOnDisable)
        .remoteCopyLagMs(remoteCopyLagMs)
        .remoteCopyLagBytes(remoteCopyLagBytes)
        .leaderReplicationThrottledReplicas(leaderReplicationThrottledReplicas)
        .followerReplicationThrottledReplicas(followerReplicationThrottledReplicas)
        .retentionDeadlineEnable(retentionDeadlineEnable)
        .maxInflatedBytesFactor(maxInflatedBytesFactor);
  }

  /**
   * How far one batch's records may inflate when the broker reads them (produce validation, the
   * cleaner, time lookups): {@code max.message.bytes × brook.max.inflated.bytes.factor}, for the
   * whole batch and for any one record.
   */
  public RecordLimits recordLimits() {
    return RecordLimits.of(maxMessageBytes, maxInflatedBytesFactor);
  }

  /** Fluent construction starting from Kafka's defaults. */
  public static final class Builder {
    private int segmentBytes = DEFAULT_SEGMENT_BYTES;
    private long segmentMs = DEFAULT_SEGMENT_MS;
    private int segmentIndexBytes = DEFAULT_SEGMENT_INDEX_BYTES;
    private int indexIntervalBytes = DEFAULT_INDEX_INTERVAL_BYTES;
    private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
    private long flushMessages = Long.MAX_VALUE;
    private long flushMs = Long.MAX_VALUE;
    private TimestampType timestampType = TimestampType.CREATE_TIME;
    private long timestampBeforeMaxMs = Long.MAX_VALUE;
    private long timestampAfterMaxMs = DEFAULT_TIMESTAMP_AFTER_MAX_MS;
    private Set<String> cleanupPolicy = DEFAULT_CLEANUP_POLICY;
    private long retentionMs = DEFAULT_RETENTION_MS;
    private long retentionBytes = UNLIMITED;
    private long deleteRetentionMs = DEFAULT_DELETE_RETENTION_MS;
    private long minCompactionLagMs;
    private long maxCompactionLagMs = Long.MAX_VALUE;
    private double minCleanableDirtyRatio = DEFAULT_MIN_CLEANABLE_DIRTY_RATIO;
    private long fileDeleteDelayMs = DEFAULT_FILE_DELETE_DELAY_MS;
    private long segmentJitterMs;
    private boolean preallocate;
    private int minInSyncReplicas = 1;
    private boolean uncleanLeaderElectionEnable;
    private TopicCompression compressionType = TopicCompression.PRODUCER;
    private int compressionGzipLevel = DEFAULT_GZIP_LEVEL;
    private int compressionLz4Level = DEFAULT_LZ4_LEVEL;
    private int compressionZstdLevel = DEFAULT_ZSTD_LEVEL;
    private long localRetentionMs = LOCAL_RETENTION_FROM_RETENTION;
    private long localRetentionBytes = LOCAL_RETENTION_FROM_RETENTION;
    private boolean remoteStorageEnable;
    private boolean remoteLogCopyDisable;
    private boolean remoteLogDeleteOnDisable;
    private long remoteCopyLagMs;
    private long remoteCopyLagBytes;
    private List<String> leaderReplicationThrottledReplicas = List.of();
    private List<String> followerReplicationThrottledReplicas = List.of();
    private boolean retentionDeadlineEnable;
    private int maxInflatedBytesFactor = RecordLimits.DEFAULT_INFLATION_FACTOR;

    private Builder() {}

    public Builder segmentBytes(int value) {
      segmentBytes = value;
      return this;
    }

    public Builder segmentMs(long value) {
      segmentMs = value;
      return this;
    }

    public Builder segmentIndexBytes(int value) {
      segmentIndexBytes = value;
      return this;
    }

    public Builder indexIntervalBytes(int value) {
      indexIntervalBytes = value;
      return this;
    }

    public Builder maxMessageBytes(int value) {
      maxMessageBytes = value;
      return this;
    }

    public Builder flushMessages(long value) {
      flushMessages = value;
      return this;
    }

    public Builder flushMs(long value) {
      flushMs = value;
      return this;
    }

    public Builder timestampType(TimestampType value) {
      timestampType = value;
      return this;
    }

    public Builder timestampBeforeMaxMs(long value) {
      timestampBeforeMaxMs = value;
      return this;
    }

    public Builder timestampAfterMaxMs(long value) {
      timestampAfterMaxMs = value;
      return this;
    }

    /**
     * Shorthand for the two single-policy settings: {@code true} means {@code
     * cleanup.policy=compact}, {@code false} means {@code cleanup.policy=delete}. A policy that
     * already agrees (for example {@code delete,compact} and {@code true}) is left as it is; use
     * {@link #cleanupPolicy} to set any other combination.
     */
    public Builder compacted(boolean value) {
      if (value != cleanupPolicy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
        cleanupPolicy =
            Set.of(value ? TopicConfig.CLEANUP_POLICY_COMPACT : TopicConfig.CLEANUP_POLICY_DELETE);
      }
      return this;
    }

    /** {@code cleanup.policy}: any of {@code delete} and {@code compact}, or none. */
    public Builder cleanupPolicy(Collection<String> value) {
      cleanupPolicy = copyPolicy(value);
      return this;
    }

    public Builder retentionMs(long value) {
      retentionMs = value;
      return this;
    }

    public Builder retentionBytes(long value) {
      retentionBytes = value;
      return this;
    }

    public Builder deleteRetentionMs(long value) {
      deleteRetentionMs = value;
      return this;
    }

    public Builder minCompactionLagMs(long value) {
      minCompactionLagMs = value;
      return this;
    }

    public Builder maxCompactionLagMs(long value) {
      maxCompactionLagMs = value;
      return this;
    }

    public Builder minCleanableDirtyRatio(double value) {
      minCleanableDirtyRatio = value;
      return this;
    }

    public Builder fileDeleteDelayMs(long value) {
      fileDeleteDelayMs = value;
      return this;
    }

    public Builder segmentJitterMs(long value) {
      segmentJitterMs = value;
      return this;
    }

    public Builder preallocate(boolean value) {
      preallocate = value;
      return this;
    }

    public Builder minInSyncReplicas(int value) {
      minInSyncReplicas = value;
      return this;
    }

    public Builder uncleanLeaderElectionEnable(boolean value) {
      uncleanLeaderElectionEnable = value;
      return this;
    }

    public Builder compressionType(TopicCompression value) {
      compressionType = value;
      return this;
    }

    public Builder compressionGzipLevel(int value) {
      compressionGzipLevel = value;
      return this;
    }

    public Builder compressionLz4Level(int value) {
      compressionLz4Level = value;
      return this;
    }

    public Builder compressionZstdLevel(int value) {
      compressionZstdLevel = value;
      return this;
    }

    public Builder localRetentionMs(long value) {
      localRetentionMs = value;
      return this;
    }

    public Builder localRetentionBytes(long value) {
      localRetentionBytes = value;
      return this;
    }

    public Builder remoteStorageEnable(boolean value) {
      remoteStorageEnable = value;
      return this;
    }

    public Builder remoteLogCopyDisable(boolean value) {
      remoteLogCopyDisable = value;
      return this;
    }

    public Builder remoteLogDeleteOnDisable(boolean value) {
      remoteLogDeleteOnDisable = value;
      return this;
    }

    public Builder remoteCopyLagMs(long value) {
      remoteCopyLagMs = value;
      return this;
    }

    public Builder remoteCopyLagBytes(long value) {
      remoteCopyLagBytes = value;
      return this;
    }

    public Builder leaderReplicationThrottledReplicas(List<String> value) {
      leaderReplicationThrottledReplicas = List.copyOf(value);
      return this;
    }

    public Builder followerReplicationThrottledReplicas(List<String> value) {
      followerReplicationThrottledReplicas = List.copyOf(value);
      return this;
    }

    public Builder retentionDeadlineEnable(boolean value) {
      retentionDeadlineEnable = value;
      return this;
    }

    public Builder maxInflatedBytesFactor(int value) {
      maxInflatedBytesFactor = value;
      return this;
    }

    public LogConfig build() {
      return new LogConfig(
          segmentBytes,
          segmentMs,
          segmentIndexBytes,
          indexIntervalBytes,
          maxMessageBytes,
          flushMessages,
          flushMs,
          timestampType,
          timestampBeforeMaxMs,
          timestampAfterMaxMs,
          cleanupPolicy.contains(TopicConfig.CLEANUP_POLICY_COMPACT),
          retentionMs,
          retentionBytes,
          cleanupPolicy,
          deleteRetentionMs,
          minCompactionLagMs,
          maxCompactionLagMs,
          minCleanableDirtyRatio,
          fileDeleteDelayMs,
          segmentJitterMs,
          preallocate,
          minInSyncReplicas,
          uncleanLeaderElectionEnable,
          compressionType,
          compressionGzipLevel,
          compressionLz4Level,
          compressionZstdLevel,
          localRetentionMs,
          localRetentionBytes,
          remoteStorageEnable,
          remoteLogCopyDisable,
          remoteLogDeleteOnDisable,
          remoteCopyLagMs,
          remoteCopyLagBytes,
          leaderReplicationThrottledReplicas,
          followerReplicationThrottledReplicas,
          retentionDeadlineEnable,
          maxInflatedBytesFactor);
    }
  }
}
