package io.brook.server.config;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * The OAUTHBEARER token validation settings of one listener, as Kafka's broker resolves them for
 * the mechanism's callback handler: each {@code sasl.oauthbearer.*} key from {@code
 * listener.name.<listener>.oauthbearer.<key>}, else {@code listener.name.<listener>.<key>}, else
 * the broker-wide value, typed and defaulted by kafka-clients' own SASL definitions (so the handler
 * finds every key it reads, with Kafka's default).
 */
public final class ListenerOAuthBearer {
  private static final String PREFIX = "listener.name.";
  private static final String MECHANISM_PREFIX = "oauthbearer.";

  private ListenerOAuthBearer() {}

  /**
   * The settings of {@code listenerName}'s OAUTHBEARER callback handler, by Kafka's unprefixed
   * names.
   *
   * @throws org.apache.kafka.common.config.ConfigException if a per-listener value does not parse
   */
  public static Map<String, Object> settings(BrokerConfig config, String listenerName) {
    String listenerPrefix = PREFIX + listenerName.toLowerCase(Locale.ROOT) + ".";
    Map<String, Object> raw = new HashMap<>();
    for (String key : SaslSettings.OAUTH_KEYS) {
      String value = config.originalString(listenerPrefix + MECHANISM_PREFIX + key);
      if (value == null) {
        value = config.originalString(listenerPrefix + key);
      }
      if (value == null) {
        value = config.originalString(key);
      }
      if (value != null) {
        raw.put(key, value);
      }
    }
    ConfigDef def = new ConfigDef();
    SaslConfigs.addClientSaslSupport(def);
    return new HashMap<>(def.parse(raw));
  }
}
