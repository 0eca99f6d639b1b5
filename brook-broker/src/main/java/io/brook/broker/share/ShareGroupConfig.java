package io.brook.broker.share;

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
 * @param deadLetterTopic {@code brook.share.dlq.topic}: where records archived at the delivery
 *     limit or rejected are written, or null for none (Kafka's behaviour: they are only archived)
 * @param redeliveryBackoffMs {@code brook.share.redelivery.backoff.ms}: how long a record that came
 *     back after its first delivery waits before it is available again, 0 for at once
 * @param redeliveryBackoffMaxMs {@code brook.share.redelivery.backoff.max.ms}: the cap of that
 *     wait, which doubles with each further delivery
 */
public record ShareGroupConfig(
    String deadLetterTopic, long redeliveryBackoffMs, long redeliveryBackoffMaxMs) {
  public static final String DLQ_TOPIC = "brook.share.dlq.topic";
  public static final String REDELIVERY_BACKOFF_MS = "brook.share.redelivery.backoff.ms";
  public static final String REDELIVERY_BACKOFF_MAX_MS = "brook.share.redelivery.backoff.max.ms";

  /** No dead-letter topic, no backoff: Kafka's behaviour. */
  public static final ShareGroupConfig DEFAULTS = new ShareGroupConfig(null, 0, 60_000);

  /** The definitions: names, types, defaults and rules (docs/configuration.md renders them). */
  public static final ConfigDef DEF =
      new ConfigDef()
          .define(
              DLQ_TOPIC,
              ConfigDef.Type.STRING,
              "",
              ConfigDef.Importance.MEDIUM,
              "Topic the share group's partition leaders write a record to when it is archived"
                  + " because its delivery count reached group.share.delivery.count.limit, or"
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
              "How long a record released by a consumer, or whose acquisition lock expired,"
                  + " waits before it can be delivered again; it doubles with each further"
                  + " delivery, up to brook.share.redelivery.backoff.max.ms. The records behind"
                  + " it are delivered meanwhile. 0 delivers it again at once, as Kafka does.")
          .define(
              REDELIVERY_BACKOFF_MAX_MS,
              ConfigDef.Type.LONG,
              60_000L,
              ConfigDef.Range.atLeast(0),
              ConfigDef.Importance.LOW,
              "The longest wait brook.share.redelivery.backoff.ms grows to.");

  private static final Set<String> NAMES = DEF.names();

  /** The group's configs from its overrides in the metadata (unknown names are ignored). */
  public static ShareGroupConfig of(Map<String, String> overrides) {
    if (overrides.isEmpty()) {
      return DEFAULTS;
    }
    try {
      Map<String, Object> parsed = DEF.parse(known(overrides));
      String topic = ((String) parsed.get(DLQ_TOPIC)).trim();
      return new ShareGroupConfig(
          topic.isEmpty() ? null : topic,
          (Long) parsed.get(REDELIVERY_BACKOFF_MS),
          (Long) parsed.get(REDELIVERY_BACKOFF_MAX_MS));
    } catch (ConfigException e) {
      // Validated when set; a value that does not parse now keeps the defaults.
      return DEFAULTS;
    }
  }

  /**
   * The controller's check of a group's overrides: only these names, with valid values.
   *
   * @throws InvalidConfigurationException naming the config that is not acceptable
   */
  public static void validate(Map<String, String> overrides) {
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
    String topic = ((String) parsed.get(DLQ_TOPIC)).trim();
    if (!topic.isEmpty()) {
      try {
        Topic.validate(topic);
      } catch (InvalidTopicException e) {
        throw new InvalidConfigurationException(DLQ_TOPIC + ": " + e.getMessage());
      }
    }
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

  private static Map<String, String> known(Map<String, String> overrides) {
    Map<String, String> known = new java.util.HashMap<>(overrides);
    known.keySet().retainAll(NAMES);
    return known;
  }
}
