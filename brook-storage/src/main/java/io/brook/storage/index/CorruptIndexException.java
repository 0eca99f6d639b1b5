package io.brook.storage.index;

/**
 * An index file's content breaks the index's invariants: its length is not a whole number of
 * entries, or its entries are out of order (typically the zero-filled tail of a preallocated file
 * left by an unclean shutdown). Indexes are derived data: the log answers this by deleting the
 * index and rebuilding it from the segment's records.
 */
public class CorruptIndexException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CorruptIndexException(String message) {
    super(message);
  }
}
