package io.brook.protocol.sasl;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/** SaslHandshake or SaslAuthenticate at every version kafka-clients knows, served by a function. */
record SaslApi(
    ApiKeys apiKey, BiFunction<RequestContext, ApiMessage, CompletionStage<ApiMessage>> handler)
    implements ApiHandler {
  @Override
  public short minVersion() {
    return apiKey.oldestVersion();
  }

  @Override
  public short maxVersion() {
    return apiKey.latestVersion();
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
    return handler.apply(context, request);
  }
}
