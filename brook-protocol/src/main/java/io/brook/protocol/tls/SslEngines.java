package io.brook.protocol.tls;

import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SslAuthenticationContext;
import org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code SSLEngine}s for one listener (or for the inter-node client), made by kafka-clients' {@link
 * DefaultSslEngineFactory} from Kafka's {@code ssl.*} settings, so keystores and truststores (JKS,
 * PKCS12, PEM files or inline PEM), {@code ssl.client.auth}, {@code ssl.enabled.protocols}, {@code
 * ssl.protocol}, {@code ssl.cipher.suites} and {@code ssl.endpoint.identification.algorithm} mean
 * exactly what they mean to a Kafka broker. The JDK provider does the TLS; Netty's {@code
 * SslHandler} drives the engine.
 *
 * <p>{@link #reloadIfChanged()} swaps in a new factory when a keystore or truststore file changed
 * on disk; connections made afterwards use the new certificates, open ones keep theirs.
 * Thread-safe: engines are made on event loops while the reload runs on a scheduler thread.
 */
public final class SslEngines implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SslEngines.class);

  /** Kafka's names, types and defaults of the TLS settings a broker reads. */
  private static final ConfigDef DEF = definition();

  private final String name;
  private final Map<String, Object> configs;
  private final DefaultKafkaPrincipalBuilder principalBuilder;
  private volatile DefaultSslEngineFactory factory;

  private SslEngines(String name, Map<String, Object> configs) {
    this.name = name;
    this.configs = configs;
    this.factory = newFactory(configs);
    String rules = (String) configs.get(BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_CONFIG);
    this.principalBuilder =
        new DefaultKafkaPrincipalBuilder(null, SslPrincipalMapper.fromRules(rules));
  }

  /**
   * Parses {@code settings} (raw {@code ssl.*} strings, Kafka's names; absent ones take Kafka's
   * defaults) and loads the stores.
   *
   * @param name what the engines serve, for logs (a listener name, "inter-broker client")
   * @throws ConfigException naming the key when a value is invalid or a store cannot be loaded
   */
  public static SslEngines create(String name, Map<String, String> settings) {
    Map<String, Object> parsed = new HashMap<>(DEF.parse(settings));
    return new SslEngines(name, Collections.unmodifiableMap(parsed));
  }

  /**
   * As {@link #create}, for a listener: it must have a keystore ({@code ssl.keystore.location} or
   * {@code ssl.keystore.key}), as a server cannot do TLS without a certificate.
   */
  public static SslEngines createServer(String listenerName, Map<String, String> settings) {
    SslEngines engines = create("listener " + listenerName, settings);
    if (engines.factory.keystore() == null) {
      engines.close();
      throw new ConfigException(
          SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG,
          null,
          "listener "
              + listenerName
              + " speaks TLS and needs a keystore: set ssl.keystore.location (or"
              + " ssl.keystore.key and ssl.keystore.certificate.chain with ssl.keystore.type=PEM),"
              + " globally or as listener.name."
              + listenerName.toLowerCase(java.util.Locale.ROOT)
              + ".ssl.keystore.location");
    }
    return engines;
  }

  /** The {@code ssl.*} keys understood here, with Kafka's types and defaults. */
  public static ConfigDef configDef() {
    return new ConfigDef(DEF);
  }

  private static ConfigDef definition() {
    ConfigDef def = new ConfigDef();
    SslConfigs.addClientSslSupport(def);
    def.define(
        BrokerSecurityConfigs.SSL_CLIENT_AUTH_CONFIG,
        ConfigDef.Type.STRING,
        "none",
        ConfigDef.ValidString.in("required", "requested", "none"),
        ConfigDef.Importance.MEDIUM,
        "Whether clients must present a certificate.");
    def.define(
        BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_CONFIG,
        ConfigDef.Type.STRING,
        BrokerSecurityConfigs.DEFAULT_SSL_PRINCIPAL_MAPPING_RULES,
        ConfigDef.Importance.LOW,
        "Rules mapping a certificate's distinguished name to a principal name.");
    return def;
  }

  private DefaultSslEngineFactory newFactory(Map<String, Object> settings) {
    DefaultSslEngineFactory f = new DefaultSslEngineFactory();
    try {
      f.configure(settings);
    } catch (RuntimeException e) {
      f.close();
      throw e instanceof ConfigException ce
          ? new ConfigException("TLS settings of " + name + ": " + ce.getMessage())
          : new ConfigException("TLS settings of " + name + " cannot be used: " + e);
    }
    return f;
  }

  /** A server-side engine for a connection accepted from {@code peerHost:peerPort}. */
  public SSLEngine newServerEngine(String peerHost, int peerPort) {
    return factory.createServerSslEngine(peerHost, peerPort);
  }

  /**
   * A client-side engine for a connection to {@code host:port}; with {@code
   * ssl.endpoint.identification.algorithm=https} (the default) the peer's certificate must name
   * {@code host}.
   */
  public SSLEngine newClientEngine(String host, int port) {
    return factory.createClientSslEngine(
        host, port, (String) configs.get(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG));
  }

  /**
   * The principal of a TLS connection as Kafka's {@code DefaultKafkaPrincipalBuilder} makes it:
   * {@code User:} followed by the peer certificate's distinguished name mapped by {@code
   * ssl.principal.mapping.rules}, or {@code User:ANONYMOUS} without a peer certificate.
   */
  public KafkaPrincipal principal(SSLSession session, InetAddress client, String listenerName) {
    return principalBuilder.build(new SslAuthenticationContext(session, client, listenerName));
  }

  /**
   * Rebuilds the engine factory when a keystore or truststore file was modified since it was
   * loaded. A store that cannot be loaded (half-written, wrong password) keeps the old one and is
   * tried again at the next call. Blocks on file reads: call it off the event loops.
   *
   * @return whether new connections now use newly loaded stores
   */
  public boolean reloadIfChanged() {
    DefaultSslEngineFactory current = factory;
    if (!current.shouldBeRebuilt(configs)) {
      return false;
    }
    DefaultSslEngineFactory next;
    try {
      next = newFactory(configs);
    } catch (ConfigException e) {
      LOG.warn(
          "Changed TLS stores cannot be loaded, keeping the old ones name={} error={}",
          name,
          e.getMessage());
      return false;
    }
    factory = next;
    current.close();
    LOG.info("Reloaded TLS keystore and truststore name={}", name);
    return true;
  }

  /**
   * The key manager of the current keystore, for TLS stacks that take managers instead of engines
   * (the Raft quorum's gRPC). The key is read with {@code ssl.key.password}, else the keystore's
   * password.
   *
   * @throws ConfigException when there is no keystore or its key cannot be read
   */
  public KeyManager keyManager() {
    KeyStore keystore = factory.keystore();
    if (keystore == null) {
      throw new ConfigException(
          SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, null, name + " has no keystore");
    }
    Password keyPassword = (Password) configs.get(SslConfigs.SSL_KEY_PASSWORD_CONFIG);
    if (keyPassword == null) {
      keyPassword = (Password) configs.get(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG);
    }
    try {
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(
              (String) configs.get(SslConfigs.SSL_KEYMANAGER_ALGORITHM_CONFIG));
      kmf.init(keystore, keyPassword == null ? null : keyPassword.value().toCharArray());
      return kmf.getKeyManagers()[0];
    } catch (GeneralSecurityException e) {
      throw new ConfigException("cannot read the key of " + name + ": " + e);
    }
  }

  /**
   * The trust manager of the current truststore (the JVM's default trust without one).
   *
   * @throws ConfigException when the truststore cannot be used
   */
  public TrustManager trustManager() {
    try {
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(
              (String) configs.get(SslConfigs.SSL_TRUSTMANAGER_ALGORITHM_CONFIG));
      tmf.init(factory.truststore());
      return tmf.getTrustManagers()[0];
    } catch (GeneralSecurityException e) {
      throw new ConfigException("cannot use the truststore of " + name + ": " + e);
    }
  }

  /** The files this instance watches, for logs. */
  public List<String> storeLocations() {
    return java.util.stream.Stream.of(
            configs.get(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG),
            configs.get(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG))
        .filter(Objects::nonNull)
        .map(Object::toString)
        .toList();
  }

  @Override
  public void close() {
    factory.close();
  }

  @Override
  public String toString() {
    return "SslEngines{" + name + "}";
  }
}
