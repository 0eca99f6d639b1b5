package io.brook.protocol.sasl;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.JaasContext;

/** Parses a listener's JAAS config for one mechanism with kafka-clients' {@link JaasContext}. */
public final class JaasEntries {
  private JaasEntries() {}

  /** Kafka's per-listener prefix, {@code listener.name.<listener lower-cased>.}. */
  public static String listenerPrefix(String listener) {
    return ListenerName.normalised(listener).configPrefix();
  }

  /** Kafka's key of a listener's JAAS config for a mechanism. */
  public static String jaasConfigKey(String listener, String mechanism) {
    return ListenerName.normalised(listener).saslMechanismConfigPrefix(mechanism)
        + SaslConfigs.SASL_JAAS_CONFIG;
  }

  /**
   * The login module entries of {@code jaasConfig}, or, when it is null, of the JVM's static JAAS
   * file ({@code java.security.auth.login.config}) for the listener, as Kafka looks them up.
   *
   * @throws IllegalArgumentException if there are none or the text does not parse
   */
  public static List<AppConfigurationEntry> serverEntries(
      String listener, String mechanism, String jaasConfig) {
    Map<String, Object> configs = new HashMap<>();
    if (jaasConfig != null) {
      // kafka-clients looks the key up with or without the listener prefix, depending on whether
      // the configs it gets are already the listener's: offer both.
      configs.put(jaasConfigKey(listener, mechanism), new Password(jaasConfig));
      configs.put(
          mechanism.toLowerCase(Locale.ROOT) + "." + SaslConfigs.SASL_JAAS_CONFIG,
          new Password(jaasConfig));
    }
    return JaasContext.loadServerContext(ListenerName.normalised(listener), mechanism, configs)
        .configurationEntries();
  }
}
