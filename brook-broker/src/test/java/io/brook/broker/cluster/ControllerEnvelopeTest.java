package io.brook.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/** The controller channel's request envelope carries on whose behalf a call is made. */
class ControllerEnvelopeTest {
  private static final CreateTopicsRequestData BODY =
      new CreateTopicsRequestData().setTimeoutMs(1234);

  @Test
  void aForwardedRequestCarriesItsClientsPrincipalAndAddress() {
    ControllerEnvelope.Origin origin =
        new ControllerEnvelope.Origin(new KafkaPrincipal("User", "ålice:x"), "10.0.0.7");

    ControllerEnvelope.Request decoded =
        ControllerEnvelope.decodeRequest(
            ControllerEnvelope.encodeRequest(ApiKeys.CREATE_TOPICS, (short) 7, BODY, origin));

    assertThat(decoded.origin()).isEqualTo(origin);
    assertThat(decoded.origin().isNode()).isFalse();
    assertThat(decoded.version()).isEqualTo((short) 7);
    assertThat(decoded.body()).isEqualTo(BODY);
  }

  @Test
  void aForwardedRequestCarriesItsClientId() {
    ControllerEnvelope.Origin origin =
        new ControllerEnvelope.Origin(new KafkaPrincipal("User", "bob"), "10.0.0.8", "creator");

    ControllerEnvelope.Request decoded =
        ControllerEnvelope.decodeRequest(
            ControllerEnvelope.encodeRequest(ApiKeys.CREATE_TOPICS, (short) 7, BODY, origin));

    assertThat(decoded.origin()).isEqualTo(origin);
    assertThat(decoded.origin().clientId()).isEqualTo("creator");
    assertThat(decoded.body()).isEqualTo(BODY);
  }

  @Test
  void aNodesOwnCallHasNoClient() {
    ControllerEnvelope.Request decoded =
        ControllerEnvelope.decodeRequest(
            ControllerEnvelope.encodeRequest(ApiKeys.CREATE_TOPICS, (short) 7, BODY));

    assertThat(decoded.origin().isNode()).isTrue();
    assertThat(decoded.body()).isEqualTo(BODY);
  }
}
