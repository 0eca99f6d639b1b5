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
        "sasl.enabled.mechanisms | PLAIN | sasl.enabled.mechanisms",
        "sasl.mechanism.inter.broker.protocol | PLAIN | sasl.mechanism.inter.broker.protocol",
        "sasl.jaas.config | x required; | sasl.jaas.config",
        "principal.builder.class | com.example.Builder | principal.builder.class",
        "ssl.no.such.setting | x | ssl.no.such.setting",
        "listener.name.plaintext.sasl.enabled.mechanisms | PLAIN"
            + " | listener.name.plaintext.sasl.enabled.mechanisms",
        "listener.name.plaintext.max.connections | 10 | listener.name.plaintext.max.connections",
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

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "SASL_PLAINTEXT://:9094 | SASL_PLAINTEXT",
        "SASL_SSL://:9094 | SASL_SSL",
        "EXTERNAL://:9094 | EXTERNAL",
      })
  void aListenerWithAnUnimplementedProtocolRefusesStart(String listener, String named) {
    Map<String, String> props = combined();
    props.put("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093," + listener);
    props.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,"
            + "EXTERNAL:SASL_SSL");

    assertThatThrownBy(() -> config(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("listener " + named);
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
