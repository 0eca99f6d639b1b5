package io.brook.server.config;

import static io.brook.server.config.BrokerConfigTest.combined;
import static io.brook.server.config.BrokerConfigTest.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every secure-looking configuration Brook cannot honour stops start-up, naming what it cannot. */
class SupportedSecurityTest {

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "sasl.kerberos.service.name | kafka | sasl.kerberos.service.name",
        "sasl.login.callback.handler.class | com.example.Login | sasl.login.callback.handler.class",
        "listener.name.plaintext.gssapi.sasl.jaas.config | x required;"
            + " | listener.name.plaintext.gssapi.sasl.jaas.config",
        "listener.name.plaintext.oauthbearer.sasl.oauthbearer.jwt.validator.class | com.example.V"
            + " | listener.name.plaintext.oauthbearer.sasl.oauthbearer.jwt.validator.class",
        "sasl.oauthbearer.token.endpoint.url | http://idp/token | sasl.oauthbearer.token.endpoint.url",
        "listener.name.plaintext.scram-sha-256.sasl.oauthbearer.expected.issuer | https://idp"
            + " | listener.name.plaintext.scram-sha-256.sasl.oauthbearer.expected.issuer",
        "principal.builder.class | com.example.Builder | principal.builder.class",
        "ssl.no.such.setting | x | ssl.no.such.setting",
        "listener.name.plaintext.sasl.kerberos.service.name | kafka"
            + " | listener.name.plaintext.sasl.kerberos.service.name",
        "listener.name.plaintext.no.such.limit | 10 | listener.name.plaintext.no.such.limit",
        "listener.name.nosuch.ssl.keystore.location | /k | listener.name.nosuch",
        "listener.name.x | y | listener.name.x",
      })
  void anUnimplementedSecurityKeyRefusesStart(String key, String value, String named) {
    Map<String, String> props = combined();
    props.put(key, value);

    assertThatThrownBy(() -> config(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(named)
        .hasMessageNotContaining(value.length() > 3 ? value : "\u0000");
  }

  @Test
  void theHttpsApiTakesTlsSettingsUnderListenerNameHttpOnly() {
    Map<String, String> props = combined();
    props.put("brook.http.listener", "https://127.0.0.1:8443");
    props.put("listener.name.http.ssl.keystore.location", "/etc/brook/http.p12");
    assertThat(config(props).httpApi().tls()).isTrue();

    props.put("listener.name.http.sasl.jaas.config", "x required;");
    assertThatThrownBy(() -> config(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("listener.name.http.sasl.jaas.config");

    // Over plain HTTP the settings would do nothing: refused like any unknown listener's.
    props.remove("listener.name.http.sasl.jaas.config");
    props.put("brook.http.listener", "http://127.0.0.1:8082");
    assertThatThrownBy(() -> config(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("listener.name.http");
  }

  @Test
  void perListenerConnectionLimitsAreAcceptedAndResolved() {
    Map<String, String> props = combined();
    props.put("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093,CLIENTS://:9094");
    props.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,CLIENTS:PLAINTEXT");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("max.connection.creation.rate", "50");
    props.put("listener.name.clients.max.connections", "100");
    props.put("listener.name.CLIENTS.max.connection.creation.rate", "20");

    io.brook.protocol.network.AcceptLimits limits = config(props).acceptLimits();

    assertThat(limits.maxConnectionCreationRate()).isEqualTo(50);
    assertThat(limits.interBrokerListener()).isEqualTo("PLAINTEXT");
    assertThat(limits.listeners())
        .containsOnlyKeys("CLIENTS")
        .containsEntry(
            "CLIENTS", new io.brook.protocol.network.AcceptLimits.ListenerLimits(100, 20));
  }

  @Test
  void saslListenersAndTheirKeysAreAccepted() {
    Map<String, String> props = combined();
    props.put(
        "listeners", "PLAINTEXT://:9092,CONTROLLER://:9093,SASL_PLAINTEXT://:9094,SECURE://:9095");
    props.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SECURE:SASL_SSL");
    props.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512");
    props.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
    props.put("sasl.jaas.config", "x required;");
    props.put("sasl.server.max.receive.size", "65536");
    props.put("listener.name.secure.sasl.enabled.mechanisms", "SCRAM-SHA-512");
    props.put("listener.name.secure.scram-sha-512.sasl.jaas.config", "x required;");
    props.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", "x required;");
    props.put(
        "listener.name.sasl_plaintext.plain.sasl.server.callback.handler.class", "com.example.H");
    props.put("listener.name.secure.ssl.keystore.location", "/etc/brook/node.p12");
    props.put("listener.name.secure.oauthbearer.sasl.jaas.config", "x required;");
    props.put(
        "listener.name.secure.oauthbearer.sasl.server.callback.handler.class",
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler");
    props.put(
        "listener.name.secure.oauthbearer.sasl.oauthbearer.jwks.endpoint.url", "https://idp/jwks");
    props.put("listener.name.secure.sasl.oauthbearer.expected.audience", "brook");
    props.put("sasl.oauthbearer.expected.issuer", "https://idp");
    props.put("sasl.oauthbearer.clock.skew.seconds", "5");

    BrokerConfig config = config(props);

    assertThat(config.unknownKeys()).isEmpty();
    assertThat(config.value("sasl.oauthbearer.clock.skew.seconds")).isEqualTo(5);
    assertThat(ListenerOAuthBearer.settings(config, "SECURE"))
        .containsEntry("sasl.oauthbearer.jwks.endpoint.url", "https://idp/jwks")
        .containsEntry("sasl.oauthbearer.expected.audience", java.util.List.of("brook"))
        .containsEntry("sasl.oauthbearer.expected.issuer", "https://idp")
        .containsEntry("sasl.oauthbearer.clock.skew.seconds", 5)
        .containsEntry("sasl.oauthbearer.sub.claim.name", "sub");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"SASL_SSL", "SASL_PLAINTEXT"})
  void aBrokerOnlyNodeRefusesAControllerListenerItCannotSpeak(String protocol) {
    Map<String, String> props = combined();
    props.put("process.roles", "broker");
    props.put("node.id", "2");
    props.put("listeners", "PLAINTEXT://:9092");
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:" + protocol);

    assertThatThrownBy(() -> config(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("controller listener CONTROLLER");
  }

  @org.junit.jupiter.api.Test
  void tlsListenersAndTheirKeysAreAccepted() {
    Map<String, String> props = combined();
    props.put("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093,SSL://:9094");
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL,SSL:SSL");
    props.put("ssl.keystore.location", "/etc/brook/node.p12");
    props.put("ssl.keystore.type", "PKCS12");
    props.put("listener.name.ssl.ssl.client.auth", "required");
    props.put("listener.name.controller.ssl.keystore.location", "/etc/brook/quorum.p12");

    BrokerConfig config = config(props);

    org.assertj.core.api.Assertions.assertThat(config.unknownKeys()).isEmpty();
    org.assertj.core.api.Assertions.assertThat(ListenerTls.settings(config, "SSL"))
        .containsEntry("ssl.client.auth", "required")
        .containsEntry("ssl.keystore.location", "/etc/brook/node.p12");
    org.assertj.core.api.Assertions.assertThat(ListenerTls.settings(config, "CONTROLLER"))
        .containsEntry("ssl.keystore.location", "/etc/brook/quorum.p12")
        .doesNotContainKey("ssl.client.auth");
  }

  @org.junit.jupiter.api.Test
  void aCustomSslEngineFactoryIsRefused() {
    Map<String, String> props = combined();
    props.put("ssl.engine.factory.class", "com.example.Factory");

    assertThatThrownBy(() -> config(props)).hasMessageContaining("ssl.engine.factory.class");
  }

  @Test
  void anAuthorizerOtherThanKafkasStandardAuthorizerRefusesStart() {
    Map<String, String> props = combined();
    props.put("authorizer.class.name", "com.example.OpenDoorAuthorizer");

    assertThatThrownBy(() -> config(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("authorizer.class.name");
  }

  @Test
  void kafkasStandardAuthorizerIsAccepted() {
    Map<String, String> props = combined();
    props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");

    assertThat(config(props).authorizerEnabled()).isTrue();
  }
}
