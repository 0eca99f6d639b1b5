package io.brook.storage.log;

import io.brook.storage.log.TopicConfigSpecs.Spec;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidConfigurationException;

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
 * transitions such as turning remote storage off without {@code remote.log.delete.on.disable} (the
 * controller's validator checks both, brook-server's {@code TieredStorage}).
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
  private static final Map<String, Spec> BY_NAME = index(TopicConfigSpecs.SPECS);

  private static final ConfigDef CONFIG_DEF = configDefOf(TopicConfigSpecs.SPECS);

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
    for (Spec spec : TopicConfigSpecs.SPECS) {
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
    return TopicConfigSpecs.USED_BY_BROOK.contains(name);
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
    // Unlike Kafka, compacted topics may be tiered: only cleaned segments are copied and the
    // remote copy is compacted in turn (see docs/storage.md, "Compacted topics").
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
  static List<String> strings(Object parsedList) {
    return (List<String>) parsedList;
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
}
