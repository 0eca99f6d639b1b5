package io.brook.broker.share;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/**
 * A share group's own configs: set on the GROUP config resource with IncrementalAlterConfigs (as
 * Kafka's group configs are), kept by the controller in the metadata, and read by each partition
 * leader from its metadata image when it needs them, so a change applies at once everywhere.
 *
 * <p>Two families: Kafka's share group configs ({@code share.*}, {@link #KAFKA_KEYS}), which
 * override the broker's {@code group.share.*} settings for one group, checked against the broker's
 * {@code group.share.min.*}/{@code max.*} bounds as Kafka checks them; and Brook's own ({@code
 * brook.share.*}), for what Kafka has no config for. The Kafka values here are null when the group
 * does not set them (the broker's setting applies: see the accessors taking {@link ShareLimits}).
 *
 * @param deadLetterTopic {@code brook.share.dlq.topic}: where records archived at the delivery
 *     limit or rejected are written, or null for none (Kafka's behaviour: they are only archived)
 * @param redeliveryBackoffMs {@code brook.share.redelivery.backoff.ms}: how long a record that came
 *     back after its first delivery waits before it is available again, 0 for at once
 * @param redeliveryBackoffMaxMs {@code brook.share.redelivery.backoff.max.ms}: the cap of that
 *     wait, which doubles with each further delivery
 * @param recordLockDurationMs {@code share.record.lock.duration.ms}, or null
 * @param deliveryCountLimit {@code share.delivery.count.limit}, or null
 * @param maxRecordLocks {@code share.partition.max.record.locks}, or null
 * @param autoOffsetReset {@code share.auto.offset.reset}, or null
 */
public record ShareGroupConfig(
    String deadLetterTopic,
    long redeliveryBackoffMs,
    long redeliveryBackoffMaxMs,
    Integer recordLockDurationMs,
    Integer deliveryCountLimit,
    Integer maxRecordLocks,
    ShareAutoOffsetReset autoOffsetReset) {
  public static final String DLQ_TOPIC = "brook.share.dlq.topic";
  public static final String REDELIVERY_BACKOFF_MS = "brook.share.redelivery.backoff.ms";
  public static final String REDELIVERY_BACKOFF_MAX_MS = "brook.share.redelivery.backoff.max.ms";

  public static final String AUTO_OFFSET_RESET = "share.auto.offset.reset";
  public static final String RECORD_LOCK_DURATION_MS = "share.record.lock.duration.ms";
  public static final String DELIVERY_COUNT_LIMIT = "share.delivery.count.limit";
  public static final String PARTITION_MAX_RECORD_LOCKS = "share.partition.max.record.locks";
  public static final String SESSION_TIMEOUT_MS = "share.session.timeout.ms";
  public static final String HEARTBEAT_INTERVAL_MS = "share.heartbeat.interval.ms";
  public static final String ISOLATION_LEVEL = "share.isolation.level";
  public static final String RENEW_ACKNOWLEDGE_ENABLE = "share.renew.acknowledge.enable";

  /**
   * Kafka's group config to the broker setting that is its default, as DescribeConfigs lists them
   * (Brook's {@code brook.share.auto.offset.reset} stands in for the broker-wide reset, which Kafka
   * has not).
   */
  public static final Map<String, String> BROKER_SYNONYMS =
      Map.of(
          AUTO_OFFSET_RESET, "brook.share.auto.offset.reset",
          RECORD_LOCK_DURATION_MS, "group.share.record.lock.duration.ms",
          DELIVERY_COUNT_LIMIT, "group.share.delivery.count.limit",
          PARTITION_MAX_RECORD_LOCKS, "group.share.partition.max.record.locks",
          SESSION_TIMEOUT_MS, "group.share.session.timeout.ms",
          HEARTBEAT_INTERVAL_MS, "group.share.heartbeat.interval.ms");

  /** The group configs Kafka also has, under Kafka's names. */
  public static final Set<String> KAFKA_KEYS =
      Set.of(
          AUTO_OFFSET_RESET,
          RECORD_LOCK_DURATION_MS,
          DELIVERY_COUNT_LIMIT,
          PARTITION_MAX_RECORD_LOCKS,
          SESSION_TIMEOUT_MS,
          HEARTBEAT_INTERVAL_MS,
          ISOLATION_LEVEL,
          RENEW_ACKNOWLEDGE_ENABLE);

  /** No dead-letter topic, no backoff, the broker's share settings: Kafka's behaviour. */
  public static final ShareGroupConfig DEFAULTS = new ShareGroupConfig(null, 0, 60_000);

  /** Brook's own configs alone; Kafka's are the broker's. */
  public ShareGroupConfig(
      String deadLetterTopic, long redeliveryBackoffMs, long redeliveryBackoffMaxMs) {
    this(deadLetterTopic, redeliveryBackoffMs, redeliveryBackoffMaxMs, null, null, null, null);
  }

  /** The definitions: names, types, defaults and rules (docs/configuration.md renders them). */
  public static final ConfigDef DEF =
      new ConfigDef()
          .define(
              AUTO_OFFSET_RESET,
              ConfigDef.Type.STRING,
              "latest",
              ShareAutoOffsetReset.VALIDATOR,
              ConfigDef.Importance.MEDIUM,
              "Kafka's: where the group starts on a partition it has no share state for: latest"
                  + " (the high watermark), earliest (the log start) or by_duration:<ISO-8601"
                  + " duration> (the first record at most that long ago, else the high"
                  + " watermark). Without it the broker's brook.share.auto.offset.reset applies.")
          .define(
              RECORD_LOCK_DURATION_MS,
              ConfigDef.Type.INT,
              30_000,
              ConfigDef.Range.atLeast(1_000),
              ConfigDef.Importance.MEDIUM,
              "Kafka's: how long a delivered record stays locked to its consumer, within"
                  + " group.share.min/max.record.lock.duration.ms; default"
                  + " group.share.record.lock.duration.ms.")
          .define(
              DELIVERY_COUNT_LIMIT,
              ConfigDef.Type.INT,
              5,
              ConfigDef.Range.atLeast(2),
              ConfigDef.Importance.MEDIUM,
              "Kafka's: deliveries after which a record that comes back is archived, within"
                  + " group.share.min/max.delivery.count.limit; default"
                  + " group.share.delivery.count.limit.")
          .define(
              PARTITION_MAX_RECORD_LOCKS,
              ConfigDef.Type.INT,
              2_000,
              ConfigDef.Range.atLeast(100),
              ConfigDef.Importance.MEDIUM,
              "Kafka's: most records a share-partition tracks past its start offset, within"
                  + " group.share.min/max.partition.max.record.locks; default"
                  + " group.share.partition.max.record.locks. Applies to share-partitions a"
                  + " leader loads after the change.")
          .define(
              SESSION_TIMEOUT_MS,
              ConfigDef.Type.INT,
              45_000,
              ConfigDef.Range.atLeast(1),
              ConfigDef.Importance.MEDIUM,
              "Kafka's: how long the group coordinator waits for a member's heartbeat, within"
                  + " group.share.min/max.session.timeout.ms and above the heartbeat interval;"
                  + " default group.share.session.timeout.ms.")
          .define(
              HEARTBEAT_INTERVAL_MS,
              ConfigDef.Type.INT,
              5_000,
              ConfigDef.Range.atLeast(1),
              ConfigDef.Importance.MEDIUM,
              "Kafka's: the heartbeat interval given to the group's members, within"
                  + " group.share.min/max.heartbeat.interval.ms; default"
                  + " group.share.heartbeat.interval.ms.")
          .define(
              ISOLATION_LEVEL,
              ConfigDef.Type.STRING,
              "read_uncommitted",
              ConfigDef.ValidString.in("read_committed", "read_uncommitted"),
              ConfigDef.Importance.MEDIUM,
              "Kafka's: which transactional records the group is given. Brook's share groups"
                  + " read uncommitted only: read_committed is refused.")
          .define(
              RENEW_ACKNOWLEDGE_ENABLE,
              ConfigDef.Type.BOOLEAN,
              true,
              ConfigDef.Importance.MEDIUM,
              "Kafka's: whether the group's consumers may renew acquisition locks (RENEW)."
                  + " Brook always allows it: false is refused.")
          .define(
              DLQ_TOPIC,
              ConfigDef.Type.STRING,
              "",
              ConfigDef.Importance.MEDIUM,
              "Brook's: topic the share group's partition leaders write a record to when it is"
                  + " archived because its delivery count reached the delivery count limit, or"
                  + " because a consumer rejected it: its key, value and headers, with"
                  + " brook.dlq.* headers saying where it came from and why. Exactly once per"
                  + " record, also across crashes (docs/groups.md). The topic must exist; empty"
                  + " for none.")
          .define(
              REDELIVERY_BACKOFF_MS,
              ConfigDef.Type.LONG,
              0L,
              ConfigDef.Range.atLeast(0),
              ConfigDef.Importance.MEDIUM,
              "Brook's: how long a record released by a consumer, or whose acquisition lock"
                  + " expired, waits before it can be delivered again; it doubles with each"
                  + " further delivery, up to brook.share.redelivery.backoff.max.ms. The records"
                  + " behind it are delivered meanwhile. 0 delivers it again at once, as Kafka"
                  + " does.")
          .define(
              REDELIVERY_BACKOFF_MAX_MS,
              ConfigDef.Type.LONG,
              60_000L,
              ConfigDef.Range.atLeast(0),
              ConfigDef.Importance.LOW,
              "Brook's: the longest wait brook.share.redelivery.backoff.max.ms grows to.");

  private static final Set<String> NAMES = DEF.names();

  /** The group's configs from its overrides in the metadata (unknown names are ignored). */
  public static ShareGroupConfig of(Map<String, String> overrides) {
    if (overrides.isEmpty()) {
      return DEFAULTS;
    }
    Map<String, String> known = new HashMap<>(overrides);
    known.keySet().retainAll(NAMES);
    Map<String, Object> parsed;
    try {
      parsed = DEF.parse(known);
    } catch (ConfigException e) {
      // Validated when set; a value that does not parse now keeps the defaults.
      return DEFAULTS;
    }
    String topic = ((String) parsed.get(DLQ_TOPIC)).trim();
    return new ShareGroupConfig(
        topic.isEmpty() ? null : topic,
        (Long) parsed.get(REDELIVERY_BACKOFF_MS),
        (Long) parsed.get(REDELIVERY_BACKOFF_MAX_MS),
        known.containsKey(RECORD_LOCK_DURATION_MS)
            ? (Integer) parsed.get(RECORD_LOCK_DURATION_MS)
            : null,
        known.containsKey(DELIVERY_COUNT_LIMIT) ? (Integer) parsed.get(DELIVERY_COUNT_LIMIT) : null,
        known.containsKey(PARTITION_MAX_RECORD_LOCKS)
            ? (Integer) parsed.get(PARTITION_MAX_RECORD_LOCKS)
            : null,
        known.containsKey(AUTO_OFFSET_RESET)
            ? ShareAutoOffsetReset.parse(AUTO_OFFSET_RESET, (String) parsed.get(AUTO_OFFSET_RESET))
            : null);
  }

  /**
   * The controller's check of a group's overrides: only these names, with valid values, Kafka's
   * within the broker's bounds (as Kafka's {@code GroupConfig.validate}).
   *
   * @throws InvalidConfigurationException naming the config that is not acceptable
   */
  public static void validate(Map<String, String> overrides, ShareGroupBounds bounds) {
    for (String name : overrides.keySet()) {
      if (!NAMES.contains(name)) {
        throw new InvalidConfigurationException(
            "Unknown group config name: " + name + " (a group accepts " + NAMES + ")");
      }
    }
    Map<String, Object> parsed;
    try {
      parsed = DEF.parse(overrides);
    } catch (ConfigException e) {
      throw new InvalidConfigurationException(e.getMessage());
    }
    parsed.keySet().retainAll(overrides.keySet());
    range(
        parsed,
        RECORD_LOCK_DURATION_MS,
        bounds.minRecordLockDurationMs(),
        bounds.maxRecordLockDurationMs());
    range(
        parsed,
        DELIVERY_COUNT_LIMIT,
        bounds.minDeliveryCountLimit(),
        bounds.maxDeliveryCountLimit());
    range(
        parsed,
        PARTITION_MAX_RECORD_LOCKS,
        bounds.minPartitionMaxRecordLocks(),
        bounds.maxPartitionMaxRecordLocks());
    range(parsed, SESSION_TIMEOUT_MS, bounds.minSessionTimeoutMs(), bounds.maxSessionTimeoutMs());
    range(
        parsed,
        HEARTBEAT_INTERVAL_MS,
        bounds.minHeartbeatIntervalMs(),
        bounds.maxHeartbeatIntervalMs());
    if (parsed.containsKey(SESSION_TIMEOUT_MS) || parsed.containsKey(HEARTBEAT_INTERVAL_MS)) {
      int session = (Integer) parsed.getOrDefault(SESSION_TIMEOUT_MS, bounds.sessionTimeoutMs());
      int heartbeat =
          (Integer) parsed.getOrDefault(HEARTBEAT_INTERVAL_MS, bounds.heartbeatIntervalMs());
      if (session <= heartbeat) {
        throw new InvalidConfigurationException(
            SESSION_TIMEOUT_MS + " must be greater than " + HEARTBEAT_INTERVAL_MS);
      }
    }
    if ("read_committed".equals(parsed.get(ISOLATION_LEVEL))) {
      throw new InvalidConfigurationException(
          ISOLATION_LEVEL + ": Brook's share groups read uncommitted only (read_uncommitted)");
    }
    if (Boolean.FALSE.equals(parsed.get(RENEW_ACKNOWLEDGE_ENABLE))) {
      throw new InvalidConfigurationException(
          RENEW_ACKNOWLEDGE_ENABLE + ": Brook's share groups always allow RENEW (true)");
    }
    String topic = ((String) parsed.getOrDefault(DLQ_TOPIC, "")).trim();
    if (!topic.isEmpty()) {
      try {
        Topic.validate(topic);
      } catch (InvalidTopicException e) {
        throw new InvalidConfigurationException(DLQ_TOPIC + ": " + e.getMessage());
      }
    }
  }

  private static void range(Map<String, Object> parsed, String name, int min, int max) {
    Object value = parsed.get(name);
    if (value != null && ((Integer) value < min || (Integer) value > max)) {
      throw new InvalidConfigurationException(
          name + " must be in the range " + min + " to " + max + " inclusive.");
    }
  }

  /** The group's lock duration: its own (capped to the bounds), else the broker's. */
  public int recordLockDurationMs(ShareLimits limits) {
    ShareGroupBounds b = limits.bounds();
    return recordLockDurationMs == null
        ? limits.recordLockDurationMs()
        : ShareGroupBounds.clamp(
            recordLockDurationMs, b.minRecordLockDurationMs(), b.maxRecordLockDurationMs());
  }

  /** The group's delivery count limit: its own (capped to the bounds), else the broker's. */
  public int deliveryCountLimit(ShareLimits limits) {
    ShareGroupBounds b = limits.bounds();
    return deliveryCountLimit == null
        ? limits.deliveryCountLimit()
        : ShareGroupBounds.clamp(
            deliveryCountLimit, b.minDeliveryCountLimit(), b.maxDeliveryCountLimit());
  }

  /** The group's in-flight window: its own (capped to the bounds), else the broker's. */
  public int maxRecordLocks(ShareLimits limits) {
    ShareGroupBounds b = limits.bounds();
    return maxRecordLocks == null
        ? limits.maxRecordLocks()
        : ShareGroupBounds.clamp(
            maxRecordLocks, b.minPartitionMaxRecordLocks(), b.maxPartitionMaxRecordLocks());
  }

  /** Where the group starts on a partition: its own, else the broker's. */
  public ShareAutoOffsetReset autoOffsetReset(ShareLimits limits) {
    if (autoOffsetReset != null) {
      return autoOffsetReset;
    }
    return limits.earliest() ? ShareAutoOffsetReset.EARLIEST : ShareAutoOffsetReset.LATEST;
  }

  /**
   * How long a record waits before its next delivery after {@code deliveries} deliveries: the
   * backoff, doubled for each delivery after the first, capped.
   */
  public long backoffMs(int deliveries) {
    if (redeliveryBackoffMs <= 0 || deliveries < 1) {
      return 0;
    }
    int doublings = Math.min(deliveries - 1, 40);
    long delay = redeliveryBackoffMs;
    for (int i = 0; i < doublings && delay < redeliveryBackoffMaxMs; i++) {
      delay *= 2;
    }
    return Math.min(delay, redeliveryBackoffMaxMs);
  }
}
