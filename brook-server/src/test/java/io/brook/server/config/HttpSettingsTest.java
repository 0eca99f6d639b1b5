package io.brook.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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

  private static BrokerConfig withBasicAuth(String listener, String... more) {
    String[] base = {
      "listeners", SASL_LISTENERS,
      "listener.security.protocol.map", PROTOCOLS,
      "sasl.enabled.mechanisms", "SCRAM-SHA-256",
      "brook.http.authentication.listener", "SASL_PLAINTEXT",
      "brook.http.listener", listener
    };
    String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return config(all);
  }

  @Test
  void basicCredentialsOverPlainHttpOnlyOnLoopbackUnlessAllowed() {
    assertThatThrownBy(() -> withBasicAuth("http://0.0.0.0:8082"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("brook.http.allow.plaintext.auth")
        .hasMessageContaining("https://");
    assertThatThrownBy(() -> withBasicAuth("http://192.0.2.7:8082"))
        .hasMessageContaining("brook.http.allow.plaintext.auth");
    assertThat(withBasicAuth("http://127.0.0.1:8082").httpApi().tls()).isFalse();
    assertThat(withBasicAuth("http://localhost:8082").httpApi().listener().getHost())
        .isEqualTo("localhost");
    assertThat(
            withBasicAuth("http://0.0.0.0:8082", "brook.http.allow.plaintext.auth", "true")
                .httpApi()
                .listener()
                .getHost())
        .isEqualTo("0.0.0.0");
    HttpApiConfig https = withBasicAuth("https://0.0.0.0:8443").httpApi();
    assertThat(https.tls()).isTrue();
    assertThat(https.listener().getPort()).isEqualTo(8443);
    // Without authentication there is no password to protect.
    assertThat(config("brook.http.listener", "http://0.0.0.0:8082").httpApi().tls()).isFalse();
  }

  @Test
  void theListenerIsHttpOrHttpsWithoutAPath() {
    for (String bad : List.of("ftp://127.0.0.1:1", "https://127.0.0.1", "https://h:1/v1")) {
      assertThatThrownBy(() -> config("brook.http.listener", bad))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("brook.http.listener");
    }
  }
}
