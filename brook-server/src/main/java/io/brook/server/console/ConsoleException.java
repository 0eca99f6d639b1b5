package io.brook.server.console;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.Serial;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/** A console request refused with an HTTP status and a message the page shows as is. */
final class ConsoleException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  private final transient HttpResponseStatus status;

  ConsoleException(HttpResponseStatus status, String message) {
    super(message);
    this.status = status;
  }

  HttpResponseStatus status() {
    return status;
  }

  static ConsoleException badRequest(String message) {
    return new ConsoleException(HttpResponseStatus.BAD_REQUEST, message);
  }

  static ConsoleException notFound(String message) {
    return new ConsoleException(HttpResponseStatus.NOT_FOUND, message);
  }

  /** A Kafka error code from a response, with the handler's message when it gave one. */
  static ConsoleException of(short errorCode, String message) {
    Errors error = Errors.forCode(errorCode);
    return new ConsoleException(
        statusOf(error),
        error.name() + ": " + (message == null || message.isEmpty() ? error.message() : message));
  }

  /** What a failed handler call means to the page. */
  static ConsoleException of(Throwable failure) {
    if (failure instanceof ConsoleException e) {
      return e;
    }
    if (failure instanceof ApiException e) {
      return of(Errors.forException(e).code(), e.getMessage());
    }
    return new ConsoleException(HttpResponseStatus.INTERNAL_SERVER_ERROR, failure.toString());
  }

  private static HttpResponseStatus statusOf(Errors error) {
    return switch (error) {
      case TOPIC_AUTHORIZATION_FAILED,
          GROUP_AUTHORIZATION_FAILED,
          CLUSTER_AUTHORIZATION_FAILED,
          TRANSACTIONAL_ID_AUTHORIZATION_FAILED ->
          HttpResponseStatus.FORBIDDEN;
      case UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, GROUP_ID_NOT_FOUND ->
          HttpResponseStatus.NOT_FOUND;
      case TOPIC_ALREADY_EXISTS -> HttpResponseStatus.CONFLICT;
      case INVALID_REQUEST,
          INVALID_TOPIC_EXCEPTION,
          INVALID_PARTITIONS,
          INVALID_REPLICATION_FACTOR,
          INVALID_REPLICA_ASSIGNMENT,
          INVALID_CONFIG,
          POLICY_VIOLATION,
          OFFSET_OUT_OF_RANGE,
          RECORD_LIST_TOO_LARGE,
          MESSAGE_TOO_LARGE,
          INVALID_RECORD ->
          HttpResponseStatus.BAD_REQUEST;
      case REQUEST_TIMED_OUT,
          NOT_CONTROLLER,
          NOT_LEADER_OR_FOLLOWER,
          LEADER_NOT_AVAILABLE,
          COORDINATOR_NOT_AVAILABLE,
          COORDINATOR_LOAD_IN_PROGRESS,
          NOT_COORDINATOR,
          NOT_ENOUGH_REPLICAS,
          THROTTLING_QUOTA_EXCEEDED ->
          HttpResponseStatus.SERVICE_UNAVAILABLE;
      default -> HttpResponseStatus.INTERNAL_SERVER_ERROR;
    };
  }
}
