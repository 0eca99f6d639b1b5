package io.brook.coordinator.api;

import io.brook.coordinator.service.RequestInfo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * One coordinator API as the coordinator serves it: the request body of any version kafka-clients
 * knows in, the response body of that version out. The broker's API layer decodes the request and
 * calls it through the coordinator's service interface; it never sees the shards.
 */
public abstract class GroupApi {
  private final ApiKeys apiKey;

  protected GroupApi(ApiKeys apiKey) {
    this.apiKey = apiKey;
  }

  public final ApiKeys apiKey() {
    return apiKey;
  }

  /** The newest version served: every version kafka-clients knows unless an API says less. */
  public short maxVersion() {
    return apiKey.latestVersion();
  }

  /**
   * @param context the request's version and where it came from
   * @param request the decoded body, of this API's request class
   */
  public abstract CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage request);

  /** {@link #handle} for a caller that knows the response class, {@code responseType}. */
  public final <R extends ApiMessage> CompletableFuture<R> serve(
      RequestInfo context, ApiMessage request, Class<R> responseType) {
    return handle(context, request).thenApply(responseType::cast).toCompletableFuture();
  }

  /** The Kafka error a failed coordinator future stands for. */
  protected static Errors errorOf(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return Errors.forException(cause);
  }

  /** Kafka's rule for group ids: null or empty is invalid. */
  protected static boolean isValidGroupId(String groupId) {
    return groupId != null && !groupId.isEmpty();
  }
}
