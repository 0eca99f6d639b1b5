package io.brook.server.config;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The one table of the security Brook implements, checked when a node starts so that a
 * configuration asking for protection Brook cannot give stops start-up instead of running
 * unprotected: a listener whose security protocol is not implemented, or a security key (anything
 * under {@link #GUARDED}) that no entry of {@link #GLOBAL_KEYS} or {@link #PER_LISTENER_KEYS}
 * matches, is a {@link ConfigException} naming it.
 *
 * <p>To support more (another SASL mechanism), add the protocol or the key patterns here and define
 * the keys in a {@code *Settings} class; nothing else decides what is refused. The values of {@code
 * sasl.enabled.mechanisms} and {@code sasl.mechanism.inter.broker.protocol} are checked where the
 * SASL listeners are built: a mechanism Brook does not implement stops start-up there.
 */
final class SupportedSecurity {

  /** Security protocols a listener may speak. */
  static final Set<SecurityProtocol> LISTENER_PROTOCOLS =
      EnumSet.of(
          SecurityProtocol.PLAINTEXT,
          SecurityProtocol.SSL,
          SecurityProtocol.SASL_PLAINTEXT,
          SecurityProtocol.SASL_SSL);

  /**
   * Security protocols a CONTROLLER listener may speak (the Raft quorum's transport, not the Kafka
   * protocol server).
   */
  static final Set<SecurityProtocol> CONTROLLER_PROTOCOLS =
      EnumSet.of(SecurityProtocol.PLAINTEXT, SecurityProtocol.SSL);

  /** Key prefixes (or whole keys) whose every key must be supported; a blank value is unset. */
  static final List<String> GUARDED =
      List.of(
          "ssl.", "sasl.", "authorizer.class.name", "principal.builder.class", "listener.name.");

  /** TLS: Kafka's {@code ssl.*} broker keys ({@link SecuritySettings}); not a custom engine. */
  private static final Pattern SSL_KEYS =
      Pattern.compile(
          "ssl\\.(protocol|provider|cipher\\.suites|enabled\\.protocols|keystore\\.type"
              + "|keystore\\.location|keystore\\.password|key\\.password|keystore\\.key"
              + "|keystore\\.certificate\\.chain|truststore\\.type|truststore\\.location"
              + "|truststore\\.password|truststore\\.certificates|keymanager\\.algorithm"
              + "|trustmanager\\.algorithm|endpoint\\.identification\\.algorithm"
              + "|secure\\.random\\.implementation|client\\.auth|principal\\.mapping\\.rules)");

  /**
   * Authorization: {@code authorizer.class.name}; {@link AuthorizerSettings} accepts only Kafka's
   * {@code StandardAuthorizer} as its value.
   */
  private static final Pattern AUTHORIZER_KEYS = Pattern.compile("authorizer\\.class\\.name");

  /** OAUTHBEARER token validation: Kafka's {@code sasl.oauthbearer.*} broker keys. */
  private static final String OAUTHBEARER_KEYS =
      SaslSettings.OAUTH_KEYS.stream()
          .map(Pattern::quote)
          .collect(java.util.stream.Collectors.joining("|"));

  /** SASL: Kafka's broker-wide {@code sasl.*} keys ({@link SaslSettings}). */
  private static final Pattern SASL_KEYS =
      Pattern.compile(
          "sasl\\.(enabled\\.mechanisms|mechanism\\.inter\\.broker\\.protocol|jaas\\.config"
              + "|server\\.max\\.receive\\.size|server\\.callback\\.handler\\.class)"
              + "|"
              + OAUTHBEARER_KEYS);

  /**
   * SASL per listener: the enabled mechanisms, and the JAAS config and callback handler of one of
   * the mechanisms Brook implements ({@code <mechanism>.sasl.*}, lower case as in Kafka), and
   * OAUTHBEARER's validation keys (with or without the mechanism prefix, as Kafka looks them up).
   */
  private static final Pattern SASL_LISTENER_KEYS =
      Pattern.compile(
          "sasl\\.enabled\\.mechanisms"
              + "|(plain|scram-sha-256|scram-sha-512|oauthbearer)\\.sasl\\.jaas\\.config"
              + "|(plain|oauthbearer)\\.sasl\\.server\\.callback\\.handler\\.class"
              + "|(oauthbearer\\.)?("
              + OAUTHBEARER_KEYS
              + ")");

  /**
   * Connection limits per listener (not security, but under {@code listener.name.} like the rest;
   * {@link ListenerConnectionLimits}).
   */
  private static final Pattern CONNECTION_LIMIT_LISTENER_KEYS =
      Pattern.compile("max\\.connections|max\\.connection\\.creation\\.rate");

  /** Keys Brook implements, whole-key patterns. */
  static final List<Pattern> GLOBAL_KEYS = List.of(SSL_KEYS, SASL_KEYS, AUTHORIZER_KEYS);

  /**
   * Keys Brook implements per listener, as {@code listener.name.<listener>.<key>}: patterns of the
   * {@code <key>} part.
   */
  static final List<Pattern> PER_LISTENER_KEYS =
      List.of(SSL_KEYS, SASL_LISTENER_KEYS, CONNECTION_LIMIT_LISTENER_KEYS);

  private static final String PER_LISTENER_PREFIX = "listener.name.";

  private SupportedSecurity() {}

  static void check(BrokerConfig c) {
    for (Endpoint e : c.listeners()) {
      checkProtocol(c, e.listenerName(), e.securityProtocol());
    }
    if (!c.isController()) {
      // A broker-only node reaches the controllers over their listener's protocol.
      for (String name : c.controllerListenerNames()) {
        SecurityProtocol protocol = c.securityProtocolMap().get(name);
        if (protocol != null) {
          checkProtocol(c, name, protocol);
        }
      }
    }
    for (Map.Entry<String, String> entry : c.originals().entrySet()) {
      checkKey(c, entry.getKey(), entry.getValue());
    }
  }

  /** Whether {@code key} is a per-listener override Brook implements (not an unknown key). */
  static boolean isSupportedPerListenerKey(String key) {
    String rest = perListenerRest(key);
    return rest != null && matchesAny(PER_LISTENER_KEYS, rest);
  }

  private static void checkProtocol(BrokerConfig c, String listener, SecurityProtocol protocol) {
    boolean controller = c.controllerListenerNames().contains(listener);
    Set<SecurityProtocol> supported = controller ? CONTROLLER_PROTOCOLS : LISTENER_PROTOCOLS;
    if (!supported.contains(protocol)) {
      throw new ConfigException(
          NodeSettings.LISTENER_SECURITY_PROTOCOL_MAP,
          c.string(NodeSettings.LISTENER_SECURITY_PROTOCOL_MAP),
          (controller ? "controller listener " : "listener ")
              + listener
              + " speaks "
              + protocol.name
              + ", which Brook does not implement"
              + (controller ? " for the controller quorum" : "")
              + "; supported: "
              + supported);
    }
  }

  private static void checkKey(BrokerConfig c, String key, String value) {
    if (value == null || value.isBlank() || !guarded(key)) {
      return;
    }
    String rest = perListenerRest(key);
    if (rest == null) {
      if (key.startsWith(PER_LISTENER_PREFIX)) {
        throw refused(key, value, "is not of the form listener.name.<listener>.<key>");
      }
      if (!matchesAny(GLOBAL_KEYS, key)) {
        throw refused(key, value, "is a security setting Brook does not implement");
      }
      return;
    }
    String listener = key.substring(PER_LISTENER_PREFIX.length(), key.length() - rest.length() - 1);
    if (listener.equalsIgnoreCase(HttpApiConfig.TLS_LISTENER_NAME) && c.httpApi().tls()) {
      // The HTTPS API's TLS settings (listener.name.http.ssl.*): TLS keys only.
      if (!SSL_KEYS.matcher(rest).matches()) {
        throw refused(key, value, "is not a TLS setting of the HTTPS API (" + rest + ")");
      }
      return;
    }
    boolean known =
        c.securityProtocolMap().containsKey(listener.toUpperCase(Locale.ROOT))
            || c.listeners().stream().anyMatch(e -> e.listenerName().equalsIgnoreCase(listener));
    if (!known) {
      throw refused(key, value, "names listener " + listener + ", which is not configured");
    }
    if (!matchesAny(PER_LISTENER_KEYS, rest)) {
      throw refused(
          key, value, "is a per-listener setting Brook does not implement (" + rest + ")");
    }
  }

  private static ConfigException refused(String key, String value, String why) {
    // Never echo a value: security keys hold passwords.
    return new ConfigException(
        key + " " + why + "; Brook refuses to start rather than run without it (value hidden)");
  }

  private static boolean guarded(String key) {
    for (String prefix : GUARDED) {
      if (key.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /** The {@code <key>} of {@code listener.name.<listener>.<key>}, or null. */
  private static String perListenerRest(String key) {
    if (!key.startsWith(PER_LISTENER_PREFIX)) {
      return null;
    }
    int dot = key.indexOf('.', PER_LISTENER_PREFIX.length());
    if (dot <= PER_LISTENER_PREFIX.length() || dot == key.length() - 1) {
      return null;
    }
    return key.substring(dot + 1);
  }

  private static boolean matchesAny(List<Pattern> patterns, String key) {
    for (Pattern p : patterns) {
      if (p.matcher(key).matches()) {
        return true;
      }
    }
    return false;
  }
}
