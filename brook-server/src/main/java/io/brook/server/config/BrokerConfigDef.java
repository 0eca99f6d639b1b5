package io.brook.server.config;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Every Kafka 4.x broker config Brook accepts, with Kafka's type, default and validator, the area
 * it is documented under, and whether Brook acts on it today.
 *
 * <p>The list covers the capabilities Brook is built for: node identity and KRaft roles, listeners,
 * storage, retention and compaction, networking, replication, consumer and share groups,
 * transactions, quotas tiered storage, TLS, SASL authentication and authorization. Metrics
 * reporters, streams groups, and ZooKeeper-era settings are not defined; {@link BrokerConfig}
 * reports them as unknown keys so the server can warn about each (security keys it does not define
 * stop start-up instead: {@link SupportedSecurity}).
 */
public final class BrokerConfigDef {

  private static final ConfigTable TABLE = build();

  private BrokerConfigDef() {}

  private static ConfigTable build() {
    ConfigTable table = new ConfigTable();
    NodeSettings.define(table);
    StorageSettings.define(table);
    RetentionSettings.define(table);
    NetworkSettings.define(table);
    ReplicationSettings.define(table);
    GroupSettings.define(table);
    TransactionSettings.define(table);
    QuotaSettings.define(table);
    SaslSettings.define(table);
    TieredStorageSettings.define(table);
    SecuritySettings.define(table);
    AuthorizerSettings.define(table);
    AdminSettings.define(table);
    HttpSettings.define(table);
    return table;
  }

  /** The shared definition; callers must not define more keys on it. */
  static ConfigDef shared() {
    return TABLE.def();
  }

  /** A copy of the definition, for documentation or describing. */
  public static ConfigDef configDef() {
    return new ConfigDef(TABLE.def());
  }

  /** Every accepted broker config name, alphabetically. */
  public static Set<String> names() {
    return Collections.unmodifiableSet(new TreeSet<>(TABLE.def().names()));
  }

  /** Whether {@code name} is a broker config Brook accepts. */
  public static boolean isKnown(String name) {
    return TABLE.areas().containsKey(name);
  }

  /**
   * The documentation area of the config.
   *
   * @throws IllegalArgumentException if {@code name} is not a broker config.
   */
  public static ConfigArea area(String name) {
    key(name);
    return TABLE.areas().get(name);
  }

  /**
   * Whether Brook acts on the config today; the others are accepted, validated and described.
   *
   * @throws IllegalArgumentException if {@code name} is not a broker config.
   */
  public static boolean usedByBrook(String name) {
    key(name);
    return TABLE.used().contains(name);
  }

  /**
   * @throws IllegalArgumentException if {@code name} is not a broker config.
   */
  public static Type type(String name) {
    return key(name).type;
  }

  /**
   * A one-line description.
   *
   * @throws IllegalArgumentException if {@code name} is not a broker config.
   */
  public static String documentation(String name) {
    return key(name).documentation;
  }

  /**
   * Kafka's default as DescribeConfigs prints it, or null when the config has no default value (it
   * is then unset unless configured).
   *
   * @throws IllegalArgumentException if {@code name} is not a broker config.
   */
  public static String defaultValue(String name) {
    ConfigKey key = key(name);
    if (key.defaultValue == null) {
      return null;
    }
    return ConfigDef.convertToString(key.defaultValue, key.type);
  }

  /** The names in one area, in the order they are defined. */
  public static List<String> namesIn(ConfigArea area) {
    return TABLE.areas().entrySet().stream()
        .filter(e -> e.getValue() == area)
        .map(Map.Entry::getKey)
        .toList();
  }

  private static ConfigKey key(String name) {
    ConfigKey key = TABLE.def().configKeys().get(name);
    if (key == null) {
      throw new IllegalArgumentException("Not a broker config: " + name);
    }
    return key;
  }
}
