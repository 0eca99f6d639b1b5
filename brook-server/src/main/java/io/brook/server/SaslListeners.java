package io.brook.server;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.UserScramCredentialRecord;
import io.brook.protocol.client.SaslClientCredentials;
import io.brook.protocol.sasl.JaasEntries;
import io.brook.protocol.sasl.SaslListenerConfig;
import io.brook.protocol.sasl.SaslServerFactory;
import io.brook.protocol.sasl.ScramCredentialStore;
import io.brook.protocol.sasl.ScramServer;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Endpoint;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.plain.internals.PlainServerCallbackHandler;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * How each SASL listener authenticates, from Kafka's config keys: the enabled mechanisms ({@code
 * [listener.name.<l>.]sasl.enabled.mechanisms}), PLAIN's users (the JAAS config's {@code
 * user_<name>} options, {@code [listener.name.<l>.plain.]sasl.jaas.config}) or its callback handler
 * ({@code [listener.name.<l>.plain.]sasl.server.callback.handler.class}), and SCRAM's credentials
 * (the node's metadata image). A mechanism Brook does not implement (GSSAPI, OAUTHBEARER) on a SASL
 * listener stops start-up.
 */
final class SaslListeners {
  static final String PLAIN = PlainSaslServer.PLAIN_MECHANISM;

  private SaslListeners() {}

  /**
   * The SASL listeners among the node's data listeners, by name.
   *
   * @throws ConfigException if a SASL listener enables a mechanism Brook does not implement or has
   *     no usable configuration for
   */
  static Map<String, SaslListenerConfig> build(BrokerConfig config, Supplier<MetadataImage> image) {
    Map<String, SaslListenerConfig> listeners = new LinkedHashMap<>();
    ScramCredentialStore store = credentials(image);
    boolean legacyNonce = (Boolean) config.value("brook.sasl.scram.accept.legacy.nonce");
    for (Endpoint endpoint : config.listeners()) {
      if (!isSasl(endpoint.securityProtocol())
          || config.controllerListenerNames().contains(endpoint.listenerName())) {
        continue;
      }
      String listener = endpoint.listenerName();
      Map<String, SaslServerFactory> mechanisms = new LinkedHashMap<>();
      for (String mechanism : enabledMechanisms(config, listener)) {
        mechanisms.put(mechanism, factory(config, listener, mechanism, store, legacyNonce));
      }
      if (mechanisms.isEmpty()) {
        throw new ConfigException(
            "SASL listener " + listener + " has no mechanism in sasl.enabled.mechanisms");
      }
      listeners.put(
          listener,
          new SaslListenerConfig(
              mechanisms,
              (Integer) config.value("sasl.server.max.receive.size"),
              (Integer) config.value("connection.failed.authentication.delay.ms"),
              (Long) config.value("connections.max.reauth.ms")));
    }
    return listeners;
  }

  static boolean isSasl(SecurityProtocol protocol) {
    return protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
  }

  /** SCRAM credentials from the node's current metadata image; a lookup reads one map. */
  static ScramCredentialStore credentials(Supplier<MetadataImage> image) {
    return (user, mechanism) ->
        image
            .get()
            .scramCredential(user, mechanism.type())
            .map(
                (UserScramCredentialRecord r) ->
                    new ScramCredential(r.salt(), r.storedKey(), r.serverKey(), r.iterations()))
            .orElse(null);
  }

  static List<String> enabledMechanisms(BrokerConfig config, String listener) {
    String value = listenerValue(config, listenerPrefix(listener), "sasl.enabled.mechanisms");
    if (value == null) {
      value = config.valueString("sasl.enabled.mechanisms");
    }
    return List.of(value.split(",")).stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  private static SaslServerFactory factory(
      BrokerConfig config,
      String listener,
      String mechanism,
      ScramCredentialStore store,
      boolean legacyNonce) {
    if (ScramMechanism.isScram(mechanism)) {
      return ScramServer.factory(ScramMechanism.forMechanismName(mechanism), store, legacyNonce);
    }
    if (!PLAIN.equals(mechanism)) {
      throw new ConfigException(
          "SASL mechanism "
              + mechanism
              + " on listener "
              + listener
              + " is not supported by Brook (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)");
    }
    AuthenticateCallbackHandler handler = plainCallbackHandler(config, listener);
    return () -> new PlainSaslServer(handler);
  }

  /** PLAIN's password check: the configured callback handler, or the JAAS user_ options. */
  static AuthenticateCallbackHandler plainCallbackHandler(BrokerConfig config, String listener) {
    String mechanismPrefix = listenerPrefix(listener) + PLAIN.toLowerCase(Locale.ROOT) + ".";
    String className = listenerValue(config, mechanismPrefix, "sasl.server.callback.handler.class");
    if (className == null) {
      className = config.originalString("sasl.server.callback.handler.class");
    }
    List<AppConfigurationEntry> jaas = jaasEntries(config, listener, PLAIN, className == null);
    AuthenticateCallbackHandler handler;
    if (className == null) {
      handler = new PlainServerCallbackHandler();
    } else {
      try {
        handler =
            Class.forName(className.trim())
                .asSubclass(AuthenticateCallbackHandler.class)
                .getDeclaredConstructor()
                .newInstance();
      } catch (ReflectiveOperationException | ClassCastException e) {
        throw new ConfigException(
            "cannot create the PLAIN callback handler "
                + className
                + " of listener "
                + listener
                + ": "
                + e);
      }
    }
    handler.configure(config.originals(), PLAIN, jaas);
    return handler;
  }

  /**
   * The JAAS entries of the listener's PLAIN login module: {@code
   * listener.name.<l>.plain.sasl.jaas.config}, else {@code sasl.jaas.config}, else the JVM's static
   * JAAS file ({@code java.security.auth.login.config}), as Kafka looks them up.
   */
  private static List<AppConfigurationEntry> jaasEntries(
      BrokerConfig config, String listener, String mechanism, boolean required) {
    String key = JaasEntries.jaasConfigKey(listener, mechanism);
    String value = config.originalString(key);
    if (value == null) {
      value = config.originalString(SaslConfigs.SASL_JAAS_CONFIG);
    }
    try {
      return JaasEntries.serverEntries(listener, mechanism, value);
    } catch (IllegalArgumentException e) {
      if (!required) {
        return List.of();
      }
      throw new ConfigException(
          "SASL listener "
              + listener
              + " has no JAAS config for "
              + mechanism
              + ": set "
              + key
              + ": "
              + e.getMessage());
    }
  }

  /**
   * The credentials brokers present to each other's SASL inter-broker listener: the {@code
   * username} and {@code password} options of that listener's JAAS config for {@code
   * sasl.mechanism.inter.broker.protocol}, as in Kafka.
   *
   * @throws ConfigException if the mechanism is not implemented or the options are missing
   */
  static SaslClientCredentials interBrokerCredentials(BrokerConfig config) {
    String mechanism = config.valueString("sasl.mechanism.inter.broker.protocol").trim();
    if (!PLAIN.equals(mechanism) && !ScramMechanism.isScram(mechanism)) {
      throw new ConfigException(
          "sasl.mechanism.inter.broker.protocol "
              + mechanism
              + " is not supported by Brook (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)");
    }
    List<AppConfigurationEntry> entries =
        jaasEntries(config, config.interBrokerListenerName(), mechanism, true);
    String username = JaasContext.configEntryOption(entries, "username", null);
    String password = JaasContext.configEntryOption(entries, "password", null);
    if (username == null || password == null) {
      throw new ConfigException(
          "the JAAS config of inter-broker listener "
              + config.interBrokerListenerName()
              + " for "
              + mechanism
              + " needs username and password options");
    }
    return new SaslClientCredentials(mechanism, username, password);
  }

  private static String listenerPrefix(String listener) {
    return JaasEntries.listenerPrefix(listener);
  }

  private static String listenerValue(BrokerConfig config, String prefix, String key) {
    return config.originalString(prefix + key);
  }
}
