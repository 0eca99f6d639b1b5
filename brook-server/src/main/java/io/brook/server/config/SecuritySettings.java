package io.brook.server.config;

import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;

import io.brook.protocol.tls.SslEngines;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;

/**
 * TLS: Kafka's {@code ssl.*} broker settings, with Kafka's types, defaults and validators (taken
 * from the definition the TLS engines parse them with, so the two cannot differ), each also
 * settable per listener as {@code listener.name.<listener>.ssl.*}.
 */
final class SecuritySettings {

  static final String STORE_RELOAD_INTERVAL_MS = "brook.ssl.store.reload.interval.ms";

  /** Brook's one-line descriptions; Kafka's own are paragraphs of HTML. */
  private static final Map<String, String> DOCS =
      Map.ofEntries(
          Map.entry(
              "ssl.protocol", "TLS protocol of the SSLContext (TLSv1.3; TLSv1.2 also works)."),
          Map.entry("ssl.provider", "Security provider for TLS; the JVM's default when unset."),
          Map.entry(
              "ssl.cipher.suites", "Enabled cipher suites; empty enables the JVM's defaults."),
          Map.entry("ssl.enabled.protocols", "TLS versions connections may use."),
          Map.entry("ssl.keystore.type", "Keystore format: JKS, PKCS12 or PEM."),
          Map.entry(
              "ssl.keystore.location",
              "Keystore file with this node's certificate and private key; required on a TLS"
                  + " listener unless ssl.keystore.key is given. Reloaded when it changes."),
          Map.entry("ssl.keystore.password", "Keystore password (not for PEM)."),
          Map.entry("ssl.key.password", "Password of the private key in the keystore or PEM key."),
          Map.entry(
              "ssl.keystore.key", "PEM private key (PKCS#8) inline, with ssl.keystore.type=PEM."),
          Map.entry(
              "ssl.keystore.certificate.chain",
              "PEM certificate chain inline, with ssl.keystore.type=PEM."),
          Map.entry("ssl.truststore.type", "Truststore format: JKS, PKCS12 or PEM."),
          Map.entry(
              "ssl.truststore.location",
              "Truststore file: the certificates peers' certificates must chain to. Reloaded when it"
                  + " changes."),
          Map.entry("ssl.truststore.password", "Truststore password (not for PEM)."),
          Map.entry("ssl.truststore.certificates", "PEM trusted certificates inline."),
          Map.entry("ssl.keymanager.algorithm", "Key manager factory algorithm."),
          Map.entry("ssl.trustmanager.algorithm", "Trust manager factory algorithm."),
          Map.entry(
              "ssl.endpoint.identification.algorithm",
              "How this node checks the host name in a peer broker's certificate on its outgoing"
                  + " connections; https checks it, empty does not."),
          Map.entry("ssl.secure.random.implementation", "SecureRandom implementation for TLS."),
          Map.entry(
              "ssl.client.auth",
              "Whether clients of a TLS listener must (required), may (requested) or do not"
                  + " (none) present a certificate."),
          Map.entry(
              "ssl.principal.mapping.rules",
              "Rules mapping a client certificate's distinguished name to its principal name;"
                  + " DEFAULT keeps the whole name (User:CN=...)."));

  private SecuritySettings() {}

  static void define(ConfigTable table) {
    ConfigTable.Section section = table.section(ConfigArea.SECURITY);
    for (ConfigKey key : SslEngines.configDef().configKeys().values()) {
      String doc = DOCS.get(key.name);
      if (doc == null) {
        continue; // e.g. ssl.engine.factory.class: custom engine factories are not supported
      }
      section.uses(key.name, key.type, key.defaultValue, key.validator, key.importance, doc);
    }
    section.uses(
        STORE_RELOAD_INTERVAL_MS,
        LONG,
        30_000L,
        atLeast(1),
        LOW,
        "Brook only: how often each TLS keystore and truststore file is checked for changes; a"
            + " changed one is loaded for new connections without a restart.");
  }

  /** Whether {@code key} is one of the {@code ssl.*} settings above. */
  static boolean isSslKey(String key) {
    return DOCS.containsKey(key);
  }
}
