package io.brook.storage.record;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;

/**
 * A batch refused because of one of its records: the record's index in its batch (0-based) is kept
 * so a produce response can name it (Kafka's {@code record_errors}).
 */
public final class RecordValidationException extends StorageException {
  private static final long serialVersionUID = 1L;

  private final int recordIndex;

  public RecordValidationException(StorageError error, int recordIndex, String message) {
    super(error, message);
    this.recordIndex = recordIndex;
  }

  public RecordValidationException(
      StorageError error, int recordIndex, String message, Throwable cause) {
    super(error, message, cause);
    this.recordIndex = recordIndex;
  }

  /** The index of the offending record in its batch. */
  public int recordIndex() {
    return recordIndex;
  }
}
