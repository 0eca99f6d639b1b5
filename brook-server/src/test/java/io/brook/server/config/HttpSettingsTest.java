package io.brook.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** The HTTP API's settings and the rules that keep it from opening an anonymous door. */
class HttpSettingsTest {
  private static final String SASL_LISTENERS =
      "PLAINTEXT://:9092,SASL_PLAINTEXT://:9094,CONTROLLER://:9093";

  private static final String PROTOCOLS =
      "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT";

  private static BrokerConfig config(String... keyValues) {
    Map<String, String> props = BrokerConfigTest.combined();
    for (int i = 0; i < keyValues.length; i += 2) {
      props.put(keyValues[i], keyValues[i + 1]);
    }
    return BrokerConfigTest.config(props);
  }

  @Test
  void offUnlessSetAndBoundedByDefault() {
    HttpApiConfig http = config().httpApi();
    assertThat(http.listener()).isNull();
    assertThat(http.authenticationListener()).isNull();
    assertThat(http.maxRequestBytes()).isEqualTo(4 * 1024 * 1024);
    assertThat(http.fetchMaxBytes()).isEqualTo(4 * 1024 * 1024);
    HttpApiConfig on = config("brook.http.listener", "http://127.0.0.1:8082").httpApi();
    assertThat(on.listener().getPort()).isEqualTo(8082);
  }

  @Test
  void aNodeWithSaslListenersRefusesAnAnonymousHttpApi() {
    assertThatThrownBy(
            () ->
                config(
                    "listeners",
                    SASL_LISTENERS,
                    "listener.security.protocol.map",
                    PROTOCOLS,
                    "sasl.enabled.mechanisms",
                    "SCRAM-SHA-256",
                    "brook.http.listener",
                    "http://127.0.0.1:8082"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("brook.http.authentication.listener");
    HttpApiConfig http =
        config(
                "listeners", SASL_LISTENERS,
                "listener.security.protocol.map", PROTOCOLS,
                "sasl.enabled.mechanisms", "SCRAM-SHA-256",
                "brook.http.listener", "http://127.0.0.1:8082",
                "brook.http.authentication.listener", "sasl_plaintext")
            .httpApi();
    assertThat(http.authenticationListener()).isEqualTo("SASL_PLAINTEXT");
  }

  @Test
  void theAuthenticationListenerMustBeASaslListener() {
    assertThatThrownBy(
            () ->
                config(
                    "brook.http.listener", "http://127.0.0.1:8082",
                    "brook.http.authentication.listener", "PLAINTEXT"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("must name one of this node's SASL listeners");
  }

  @Test
  void anOversizedBodyLimitIsRefused() {
    assertThatThrownBy(() -> config("brook.http.max.request.bytes", "1000000000"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("brook.http.max.request.bytes");
  }
}
