package io.brook.server.config;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The TLS settings that apply to one listener, as Kafka resolves them: the broker-wide {@code
 * ssl.*} values, each overridden by {@code listener.name.<listener>.ssl.*} (listener name in any
 * case) when that is set.
 */
public final class ListenerTls {
  private static final String PREFIX = "listener.name.";

  private ListenerTls() {}

  /** Whether a listener of this protocol runs TLS (SSL, and the TLS under SASL_SSL). */
  public static boolean usesTls(SecurityProtocol protocol) {
    return protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
  }

  /** The raw {@code ssl.*} values of {@code listenerName}, by Kafka's names. */
  public static Map<String, String> settings(BrokerConfig config, String listenerName) {
    Map<String, String> out = new LinkedHashMap<>();
    String prefix = PREFIX + listenerName.toLowerCase(Locale.ROOT) + ".";
    config
        .originals()
        .forEach(
            (key, value) -> {
              if (SecuritySettings.isSslKey(key) && value != null) {
                out.putIfAbsent(key, value);
              }
            });
    config
        .originals()
        .forEach(
            (key, value) -> {
              if (key.toLowerCase(Locale.ROOT).startsWith(prefix) && value != null) {
                String sslKey = key.substring(prefix.length());
                if (SecuritySettings.isSslKey(sslKey)) {
                  out.put(sslKey, value);
                }
              }
            });
    return out;
  }

  /** {@code brook.ssl.store.reload.interval.ms}. */
  public static long storeReloadIntervalMs(BrokerConfig config) {
    return (Long) config.value(SecuritySettings.STORE_RELOAD_INTERVAL_MS);
  }
}
