package io.brook.storage.remote;

import java.io.IOException;

/**
 * A conditional manifest replacement found another version than the one its writer read: another
 * writer (a newer leader) replaced the manifest in between.
 */
public final class ManifestConflictException extends IOException {
  private static final long serialVersionUID = 1L;

  public ManifestConflictException(String message) {
    super(message);
  }

  public ManifestConflictException(String message, Throwable cause) {
    super(message, cause);
  }
}
