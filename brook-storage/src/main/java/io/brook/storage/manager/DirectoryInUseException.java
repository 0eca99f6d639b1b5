package io.brook.storage.manager;

import java.io.IOException;

/** A data directory is locked by another Brook process. */
public class DirectoryInUseException extends IOException {
  private static final long serialVersionUID = 1L;

  public DirectoryInUseException(String message) {
    super(message);
  }
}
