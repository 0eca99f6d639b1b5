package io.brook.metadata.journal;

import java.io.IOException;

/**
 * The metadata journal holds bytes that are not a torn tail: a bad checksum, an impossible length
 * or a record that cannot apply, with valid data after it. The journal is not repaired
 * automatically: the metadata would silently lose changes.
 */
public final class CorruptJournalException extends IOException {
  private static final long serialVersionUID = 1L;

  private final long position;

  CorruptJournalException(String message, long position, Throwable cause) {
    super(message, cause);
    this.position = position;
  }

  /** The byte position in the file of the entry that is corrupt. */
  public long position() {
    return position;
  }
}
