package io.brook.storage.checkpoint;

import java.io.IOException;

/**
 * A checkpoint or snapshot file exists but cannot be trusted: wrong version, wrong entry count, a
 * malformed entry or a failed checksum. The message names the file and what is wrong with it.
 */
public class CorruptCheckpointException extends IOException {
  private static final long serialVersionUID = 1L;

  public CorruptCheckpointException(String message) {
    super(message);
  }

  public CorruptCheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
