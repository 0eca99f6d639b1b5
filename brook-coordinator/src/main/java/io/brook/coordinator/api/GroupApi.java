package io.brook.coordinator.api;

import io.brook.protocol.ApiHandler;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** A coordinator API handler serving every version kafka-clients knows. */
abstract class GroupApi implements ApiHandler {
  private final ApiKeys apiKey;

  GroupApi(ApiKeys apiKey) {
    this.apiKey = apiKey;
  }

  @Override
  public final ApiKeys apiKey() {
    return apiKey;
  }

  @Override
  public short minVersion() {
    return apiKey.oldestVersion();
  }

  @Override
  public short maxVersion() {
    return apiKey.latestVersion();
  }

  /** The Kafka error a failed coordinator future stands for. */
  static Errors errorOf(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return Errors.forException(cause);
  }

  /** Kafka's rule for group ids: null or empty is invalid. */
  static boolean isValidGroupId(String groupId) {
    return groupId != null && !groupId.isEmpty();
  }
}
