package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.client.SaslClientCredentials;
import io.brook.protocol.sasl.SaslListenerConfig;
import io.brook.server.config.BrokerConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which SASL listener configurations start, and which stop start-up. */
class SaslListenersTest {
  private static final String PLAIN_JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\""
          + " password=\"admin-secret\" user_admin=\"admin-secret\";";

  private static BrokerConfig config(String... pairs) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("node.id", "1");
    props.put("process.roles", "broker,controller");
    props.put("listeners", "SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0");
    props.put(
        "listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT");
    props.put("inter.broker.listener.name", "SASL_PLAINTEXT");
    props.put("controller.listener.names", "CONTROLLER");
    props.put("controller.quorum.voters", "1@127.0.0.1:0");
    props.put("log.dirs", "/tmp/unused");
    for (int i = 0; i < pairs.length; i += 2) {
      props.put(pairs[i], pairs[i + 1]);
    }
    return BrokerConfig.from(props);
  }

  @Test
  void plainAndScramListenerBuilds() {
    Map<String, SaslListenerConfig> listeners =
        SaslListeners.build(
                config(
                    "sasl.enabled.mechanisms",
                    "PLAIN,SCRAM-SHA-512",
                    "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                    PLAIN_JAAS),
                () -> MetadataImage.EMPTY)
            .listeners();

    assertThat(listeners).containsOnlyKeys("SASL_PLAINTEXT");
    assertThat(listeners.get("SASL_PLAINTEXT").mechanismNames())
        .containsExactly("PLAIN", "SCRAM-SHA-512");
    assertThat(listeners.get("SASL_PLAINTEXT").maxReceiveSize()).isEqualTo(524288);
  }

  @ParameterizedTest
  @ValueSource(strings = {"GSSAPI", "SCRAM-SHA-1"})
  void anUnimplementedMechanismStopsStartUp(String mechanism) {
    // GSSAPI is also Kafka's default for sasl.enabled.mechanisms.
    assertThatThrownBy(
            () ->
                SaslListeners.build(
                    config("sasl.enabled.mechanisms", mechanism), () -> MetadataImage.EMPTY))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(mechanism);
    assertThatThrownBy(() -> SaslListeners.build(config(), () -> MetadataImage.EMPTY))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("GSSAPI");
  }

  @Test
  void aSaslSslListenerGetsTheSaslStageToo() {
    // TLS goes under it (NodeTls); the SASL stage is the same as on SASL_PLAINTEXT.
    Map<String, SaslListenerConfig> listeners =
        SaslListeners.build(
                config(
                    "listener.security.protocol.map",
                    "SASL_PLAINTEXT:SASL_SSL,CONTROLLER:PLAINTEXT",
                    "sasl.enabled.mechanisms",
                    "SCRAM-SHA-256"),
                () -> MetadataImage.EMPTY)
            .listeners();

    assertThat(listeners.get("SASL_PLAINTEXT").mechanismNames()).containsExactly("SCRAM-SHA-256");
  }

  @Test
  void plainWithoutAJaasConfigStopsStartUp() {
    assertThatThrownBy(
            () ->
                SaslListeners.build(
                    config("sasl.enabled.mechanisms", "PLAIN"), () -> MetadataImage.EMPTY))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("listener.name.sasl_plaintext.plain.sasl.jaas.config");
  }

  private static final String OAUTH_JAAS =
      "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
          + " unsecuredLoginStringClaim_sub=\"broker\";";

  @Test
  void oauthBearerWithTheUnsecuredValidatorBuilds() {
    try (SaslListeners.Built built =
        SaslListeners.build(
            config(
                "sasl.enabled.mechanisms",
                "OAUTHBEARER,SCRAM-SHA-512",
                "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                OAUTH_JAAS),
            () -> MetadataImage.EMPTY)) {
      assertThat(built.listeners().get("SASL_PLAINTEXT").mechanismNames())
          .containsExactly("OAUTHBEARER", "SCRAM-SHA-512");
      assertThat(built.handlers()).hasSize(1);
    }
  }

  @Test
  void oauthBearerWithoutAJaasConfigStopsStartUp() {
    assertThatThrownBy(
            () ->
                SaslListeners.build(
                    config("sasl.enabled.mechanisms", "OAUTHBEARER"), () -> MetadataImage.EMPTY))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config");
  }

  /** Building an OAUTHBEARER-only listener with the unsecured login module's JAAS and more keys. */
  private static SaslListeners.Built oauthListener(String key, String value) {
    return SaslListeners.build(
        config(
            "sasl.enabled.mechanisms",
            "OAUTHBEARER",
            "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
            OAUTH_JAAS,
            key,
            value),
        () -> MetadataImage.EMPTY);
  }

  @Test
  void theJwksValidatorWithoutAJwksUrlStopsStartUp() {
    assertThatThrownBy(
            () ->
                oauthListener(
                    "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sasl.oauthbearer.jwks.endpoint.url");
  }

  @Test
  void aPerListenerOAuthBearerValueThatDoesNotParseStopsStartUp() {
    assertThatThrownBy(
            () ->
                oauthListener(
                    "listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.clock.skew.seconds",
                    "soon"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sasl.oauthbearer.clock.skew.seconds");
  }

  @Test
  void oauthBearerBetweenBrokersStopsStartUp() {
    assertThatThrownBy(
            () ->
                SaslListeners.interBrokerCredentials(
                    config(
                        "sasl.mechanism.inter.broker.protocol",
                        "OAUTHBEARER",
                        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                        OAUTH_JAAS)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("OAUTHBEARER");
  }

  @Test
  void interBrokerCredentialsComeFromTheListenersJaasConfig() {
    SaslClientCredentials credentials =
        SaslListeners.interBrokerCredentials(
            config(
                "sasl.mechanism.inter.broker.protocol",
                "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                PLAIN_JAAS));

    assertThat(credentials.mechanism()).isEqualTo("PLAIN");
    assertThat(credentials.username()).isEqualTo("admin");
    assertThat(credentials.password()).isEqualTo("admin-secret");
    assertThatThrownBy(() -> SaslListeners.interBrokerCredentials(config()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("GSSAPI");
  }
}
