package io.brook.storage.log;

import org.apache.kafka.common.record.TimestampType;

/**
 * The per-partition settings the log obeys, under Kafka's topic config names and defaults.
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
    boolean compacted) {

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
  }

  /** Kafka's defaults for every setting. */
  public static LogConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
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
        .compacted(compacted);
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
    private boolean compacted;

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

    public Builder compacted(boolean value) {
      compacted = value;
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
          compacted);
    }
  }
}
