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
import java.util.ArrayList;
import java.util.Collections;
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
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.plain.internals.PlainServerCallbackHandler;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How each SASL listener authenticates, from Kafka's config keys: the enabled mechanisms ({@code
 * [listener.name.<l>.]sasl.enabled.mechanisms}), PLAIN's users (the JAAS config's {@code
 * user_<name>} options, {@code [listener.name.<l>.plain.]sasl.jaas.config}) or its callback handler
 * ({@code [listener.name.<l>.plain.]sasl.server.callback.handler.class}), and SCRAM's credentials
 * (the node's metadata image), and OAUTHBEARER's token validation ({@link OAuthBearerServers}). A
 * mechanism Brook does not implement (GSSAPI) on a SASL listener stops start-up.
 */
final class SaslListeners {
  static final String PLAIN = PlainSaslServer.PLAIN_MECHANISM;
  static final String OAUTHBEARER = OAuthBearerLoginModule.OAUTHBEARER_MECHANISM;
  private static final Logger LOG = LoggerFactory.getLogger(SaslListeners.class);

  private SaslListeners() {}

  /**
   * The SASL listeners of a node and the callback handlers they validate credentials with, which
   * hold resources (an OAUTHBEARER JWKS refresher's thread) until closed.
   *
   * @param listeners each SASL listener's authentication, by listener name
   */
  record Built(
      Map<String, SaslListenerConfig> listeners, List<AuthenticateCallbackHandler> handlers)
      implements AutoCloseable {
    @Override
    public void close() {
      for (AuthenticateCallbackHandler handler : handlers) {
        try {
          handler.close();
        } catch (RuntimeException e) {
          LOG.warn("Closing a SASL callback handler failed handler={}", handler.getClass(), e);
        }
      }
    }
  }

  /**
   * The SASL listeners among the node's data listeners, by name.
   *
   * @throws ConfigException if a SASL listener enables a mechanism Brook does not implement or has
   *     no usable configuration for
   */
  static Built build(BrokerConfig config, Supplier<MetadataImage> image) {
    Map<String, SaslListenerConfig> listeners = new LinkedHashMap<>();
    List<AuthenticateCallbackHandler> handlers = new ArrayList<>();
    Built built = new Built(Collections.unmodifiableMap(listeners), handlers);
    ScramCredentialStore store = credentials(image);
    boolean legacyNonce = (Boolean) config.value("brook.sasl.scram.accept.legacy.nonce");
    try {
      for (Endpoint endpoint : config.listeners()) {
        if (!isSasl(endpoint.securityProtocol())
            || config.controllerListenerNames().contains(endpoint.listenerName())) {
          continue;
        }
        String listener = endpoint.listenerName();
        Map<String, SaslServerFactory> mechanisms = new LinkedHashMap<>();
        for (String mechanism : enabledMechanisms(config, listener)) {
          mechanisms.put(
              mechanism, factory(config, listener, mechanism, store, legacyNonce, handlers));
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
    } catch (RuntimeException e) {
      built.close();
      throw e;
    }
    return built;
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
      boolean legacyNonce,
      List<AuthenticateCallbackHandler> handlers) {
    if (ScramMechanism.isScram(mechanism)) {
      return ScramServer.factory(ScramMechanism.forMechanismName(mechanism), store, legacyNonce);
    }
    if (OAUTHBEARER.equals(mechanism)) {
      return OAuthBearerServers.factory(config, listener, handlers);
    }
    if (!PLAIN.equals(mechanism)) {
      throw new ConfigException(
          "SASL mechanism "
              + mechanism
              + " on listener "
              + listener
              + " is not supported by Brook (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER"
              + " are)");
    }
    AuthenticateCallbackHandler handler = plainCallbackHandler(config, listener);
    handlers.add(handler);
    return () -> new PlainSaslServer(handler);
  }

  /**
   * PLAIN's password check, configured: the listener's callback handler class, or the JAAS {@code
   * user_} options.
   */
  static AuthenticateCallbackHandler plainCallbackHandler(BrokerConfig config, String listener) {
    String className = callbackHandlerClass(config, listener, PLAIN);
    List<AppConfigurationEntry> jaas = jaasEntries(config, listener, PLAIN, className == null);
    AuthenticateCallbackHandler handler =
        className == null
            ? new PlainServerCallbackHandler()
            : newCallbackHandler(className, listener, PLAIN);
    handler.configure(config.originals(), PLAIN, jaas);
    return handler;
  }

  /**
   * The class named by {@code listener.name.<l>.<mechanism>.sasl.server.callback.handler.class},
   * else by the unprefixed key, as Kafka looks it up; null when neither is set.
   */
  static String callbackHandlerClass(BrokerConfig config, String listener, String mechanism) {
    String mechanismPrefix = listenerPrefix(listener) + mechanism.toLowerCase(Locale.ROOT) + ".";
    String className = listenerValue(config, mechanismPrefix, "sasl.server.callback.handler.class");
    if (className == null) {
      className = config.originalString("sasl.server.callback.handler.class");
    }
    return className == null ? null : className.trim();
  }

  /** A new instance of a configured {@link AuthenticateCallbackHandler} class, not configured. */
  static AuthenticateCallbackHandler newCallbackHandler(
      String className, String listener, String mechanism) {
    try {
      return Class.forName(className)
          .asSubclass(AuthenticateCallbackHandler.class)
          .getDeclaredConstructor()
          .newInstance();
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new ConfigException(
          "cannot create the "
              + mechanism
              + " callback handler "
              + className
              + " of listener "
              + listener
              + ": "
              + e);
    }
  }

  /**
   * The JAAS entries of the listener's PLAIN login module: {@code
   * listener.name.<l>.plain.sasl.jaas.config}, else {@code sasl.jaas.config}, else the JVM's static
   * JAAS file ({@code java.security.auth.login.config}), as Kafka looks them up.
   */
  static List<AppConfigurationEntry> jaasEntries(
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
