package io.brook.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;

/**
 * A request the HTTP API refuses: answered as {@code {"error_code": <Kafka code>, "error":
 * "<NAME>", "message": "..."}} with {@link #status()}.
 */
final class HttpApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient HttpResponseStatus status;
  private final transient Errors error;

  HttpApiException(Errors error, String message) {
    this(statusOf(error), error, message);
  }

  HttpApiException(HttpResponseStatus status, Errors error, String message) {
    super(message == null ? error.message() : message, null, false, false);
    this.status = status;
    this.error = error;
  }

  /**
   * What a failure answers: itself when it is one, else the Kafka error of the exception (an {@code
   * ApiException} a handler failed with), UNKNOWN_SERVER_ERROR for anything else.
   */
  static HttpApiException of(Throwable failure) {
    if (failure instanceof HttpApiException h) {
      return h;
    }
    Errors error = Errors.forException(failure);
    return new HttpApiException(
        error, failure.getMessage() == null ? error.message() : failure.getMessage());
  }

  /** A request the API cannot read: 400 with INVALID_REQUEST. */
  static HttpApiException badRequest(String message) {
    return new HttpApiException(HttpResponseStatus.BAD_REQUEST, Errors.INVALID_REQUEST, message);
  }

  HttpResponseStatus status() {
    return status;
  }

  Errors error() {
    return error;
  }

  /**
   * The HTTP status that fits a Kafka error: 404 for what does not exist, 401/403 for
   * authentication and authorization, 409 for a topic that exists, 413 for what is too large, 429
   * for quota refusals, 503 for what a retry may fix, 500 for the broker's own failures, 400 for
   * the rest (the request was wrong).
   */
  static HttpResponseStatus statusOf(Errors error) {
    return switch (error) {
      case UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, GROUP_ID_NOT_FOUND ->
          HttpResponseStatus.NOT_FOUND;
      case SASL_AUTHENTICATION_FAILED -> HttpResponseStatus.UNAUTHORIZED;
      case TOPIC_AUTHORIZATION_FAILED,
          GROUP_AUTHORIZATION_FAILED,
          CLUSTER_AUTHORIZATION_FAILED,
          TRANSACTIONAL_ID_AUTHORIZATION_FAILED ->
          HttpResponseStatus.FORBIDDEN;
      case TOPIC_ALREADY_EXISTS -> HttpResponseStatus.CONFLICT;
      case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE -> HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE;
      case THROTTLING_QUOTA_EXCEEDED -> HttpResponseStatus.TOO_MANY_REQUESTS;
      case UNKNOWN_SERVER_ERROR -> HttpResponseStatus.INTERNAL_SERVER_ERROR;
      default ->
          error.exception() instanceof RetriableException
              ? HttpResponseStatus.SERVICE_UNAVAILABLE
              : HttpResponseStatus.BAD_REQUEST;
    };
  }
}
