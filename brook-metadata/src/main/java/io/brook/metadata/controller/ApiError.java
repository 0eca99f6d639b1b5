package io.brook.metadata.controller;

import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;

/**
 * A Kafka error code with an optional message, as a value.
 *
 * @param error the error; {@link Errors#NONE} for success
 * @param message a message for the client, or null for the error's default message
 */
public record ApiError(Errors error, String message) {
  /** Success. */
  public static final ApiError NONE = new ApiError(Errors.NONE, null);

  public ApiError {
    Objects.requireNonNull(error, "error");
  }

  /** An error with the code's default message. */
  public static ApiError of(Errors error) {
    return error == Errors.NONE ? NONE : new ApiError(error, null);
  }

  /** Whether this is success. */
  public boolean isSuccess() {
    return error == Errors.NONE;
  }

  /** Whether this is an error. */
  public boolean isFailure() {
    return !isSuccess();
  }

  /** The message, or the error's default message when none was given. */
  public String messageOrDefault() {
    return message != null ? message : error.message();
  }
}
