package io.brook.metadata.controller;

import java.util.Objects;

/**
 * A controller call that a correct caller does not make, such as a stale broker epoch. It carries
 * the Kafka error to answer with; ordinary request errors are returned as {@link ApiError} values
 * instead.
 */
public final class MetadataException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient ApiError error;

  public MetadataException(ApiError error) {
    super(Objects.requireNonNull(error, "error").error().name() + ": " + error.messageOrDefault());
    this.error = error;
  }

  /** The Kafka error to answer with. */
  public ApiError error() {
    return error;
  }
}
