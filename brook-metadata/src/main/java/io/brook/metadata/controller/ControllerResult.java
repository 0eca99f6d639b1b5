package io.brook.metadata.controller;

import io.brook.metadata.record.MetadataRecord;
import java.util.List;

/**
 * What a controller operation produced: the records to append, and the response to give once they
 * are durable and applied. An operation that fails validation, or only validates, has no records.
 *
 * @param records the records to append, in order; possibly empty
 * @param response the response to the caller
 * @param <T> the response's type
 */
public record ControllerResult<T>(List<MetadataRecord> records, T response) {
  public ControllerResult {
    records = List.copyOf(records);
  }

  /** A result without records. */
  public static <T> ControllerResult<T> of(T response) {
    return new ControllerResult<>(List.of(), response);
  }

  /** A result with records. */
  public static <T> ControllerResult<T> of(List<MetadataRecord> records, T response) {
    return new ControllerResult<>(records, response);
  }
}
