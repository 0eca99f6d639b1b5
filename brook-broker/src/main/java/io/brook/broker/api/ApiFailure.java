package io.brook.broker.api;

import io.brook.metadata.controller.MetadataException;
import io.brook.storage.StorageException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An error to put on the wire, with its message: the one place where storage errors and Kafka
 * exceptions become error codes.
 */
public record ApiFailure(Errors error, String message) {
  private static final Logger log = LoggerFactory.getLogger(ApiFailure.class);

  public static ApiFailure of(Throwable failure) {
    Throwable cause =
        failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof StorageException storage) {
      return new ApiFailure(storage.error().kafkaError(), storage.getMessage());
    }
    if (cause instanceof MetadataException metadata) {
      return new ApiFailure(metadata.error().error(), metadata.error().messageOrDefault());
    }
    if (cause instanceof ApiException api) {
      return new ApiFailure(Errors.forException(api), api.getMessage());
    }
    log.error("Unexpected error while handling a request", cause);
    return new ApiFailure(Errors.UNKNOWN_SERVER_ERROR, cause.getClass().getSimpleName());
  }

  public static ApiFailure of(Errors error) {
    return new ApiFailure(error, error.message());
  }

  public short code() {
    return error.code();
  }
}
