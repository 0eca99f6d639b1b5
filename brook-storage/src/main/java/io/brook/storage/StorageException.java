package io.brook.storage;

/** A storage operation that failed for a reason a client or operator can act on. */
public class StorageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final StorageError error;

  public StorageException(StorageError error, String message) {
    super(message);
    this.error = error;
  }

  public StorageException(StorageError error, String message, Throwable cause) {
    super(message, cause);
    this.error = error;
  }

  public StorageError error() {
    return error;
  }
}
