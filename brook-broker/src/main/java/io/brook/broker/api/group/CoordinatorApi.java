package io.brook.broker.api.group;

import io.brook.broker.api.KafkaApi;
import io.brook.coordinator.service.RequestInfo;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A Kafka API a coordinator serves: the decoded request goes to one method of the coordinator's
 * service with what the coordinator needs of the connection and header, its response comes back.
 * Versions from kafka-clients' oldest to the newest the coordinator serves are accepted; the
 * coordinator shapes the response to the request's version.
 *
 * @param <Q> the API's request body class
 * @param <R> the API's response body class
 */
public final class CoordinatorApi<Q extends ApiMessage, R extends ApiMessage> extends KafkaApi {
  private final Class<Q> requestType;
  private final short maxVersion;
  private final BiFunction<RequestInfo, Q, CompletableFuture<R>> service;

  public CoordinatorApi(
      ApiKeys apiKey,
      short maxVersion,
      Class<Q> requestType,
      BiFunction<RequestInfo, Q, CompletableFuture<R>> service) {
    super(apiKey);
    this.maxVersion = maxVersion;
    this.requestType = requestType;
    this.service = service;
  }

  @Override
  public short maxVersion() {
    return maxVersion;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
    return service
        .apply(info(context), requestType.cast(request))
        .thenApply(ApiMessage.class::cast);
  }

  /** The request's version and origin as plain values, as Kafka's group coordinator shows them. */
  static RequestInfo info(RequestContext context) {
    return new RequestInfo(
        context.apiVersion(),
        context.clientId(),
        String.valueOf(context.clientAddress()),
        context.connectionId());
  }
}
