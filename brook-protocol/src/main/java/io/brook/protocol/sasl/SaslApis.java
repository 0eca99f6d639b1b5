package io.brook.protocol.sasl;

import io.brook.protocol.ApiHandler;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker-wide SaslHandshake and SaslAuthenticate handlers: they put both APIs in ApiVersions
 * and answer them on connections that do not authenticate (PLAINTEXT, SSL listeners) with
 * ILLEGAL_SASL_STATE, as Kafka does. On a SASL listener each connection's {@link SaslSession}
 * answers them instead.
 */
public final class SaslApis {
  private SaslApis() {}

  public static List<ApiHandler> handlers() {
    return List.of(
        illegal(
            ApiKeys.SASL_HANDSHAKE,
            new SaslHandshakeResponseData().setErrorCode(Errors.ILLEGAL_SASL_STATE.code())),
        illegal(
            ApiKeys.SASL_AUTHENTICATE,
            new SaslAuthenticateResponseData()
                .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                .setErrorMessage("SaslAuthenticate request received on a listener without SASL")));
  }

  private static ApiHandler illegal(ApiKeys apiKey, ApiMessage response) {
    return new SaslApi(
        apiKey,
        (context, request) -> CompletableFuture.completedFuture((ApiMessage) response.duplicate()));
  }
}
