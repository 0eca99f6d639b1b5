package io.brook.coordinator.api;

import io.brook.broker.api.KafkaApi;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** A coordinator API handler: every version kafka-clients knows, plus the coordinator's helpers. */
public abstract class GroupApi extends KafkaApi {
  protected GroupApi(ApiKeys apiKey) {
    super(apiKey);
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
