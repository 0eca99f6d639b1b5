package io.brook.coordinator.group.consumer;

import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/** What a client of the consumer protocol learns when a coordinator operation fails. */
public final class CoordinatorErrors {
  private CoordinatorErrors() {}

  public static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /**
   * Maps a failure to the error a heartbeat or describe answers with: write failures become the
   * retriable coordinator errors, as in Kafka.
   */
  public static Errors map(Throwable error) {
    Throwable cause = unwrap(error);
    if (!(cause instanceof ApiException)) {
      return Errors.UNKNOWN_SERVER_ERROR;
    }
    Errors errors = Errors.forException(cause);
    return switch (errors) {
      case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT ->
          Errors.COORDINATOR_NOT_AVAILABLE;
      case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
      case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE ->
          Errors.UNKNOWN_SERVER_ERROR;
      default -> errors;
    };
  }
}
