package io.brook.coordinator.runtime;

import java.nio.BufferUnderflowException;
import java.util.function.Supplier;

/**
 * A coordinator record its shard cannot read or apply: the one failure a shard's {@link
 * CoordinatorShard#replay} may throw for bad bytes, whatever its reader tripped on. Loading skips
 * such a record; anything else a replay throws is a bug (and is skipped too, but logged as such by
 * the fuzz tests that look for it).
 */
public final class MalformedRecordException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public MalformedRecordException(String message) {
    super(message);
  }

  public MalformedRecordException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Runs a reader over a record's bytes, turning what malformed bytes make the readers throw (a
   * buffer read past its end, an unknown version or code) into a {@link MalformedRecordException}.
   * The record classes already report unparseable bytes as one ({@link GeneratedRecords}).
   */
  public static <T> T reading(CoordinatorRecord record, Supplier<T> reader) {
    try {
      return reader.get();
    } catch (MalformedRecordException e) {
      throw e;
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      throw new MalformedRecordException(
          "malformed coordinator record of type " + record.type() + ": " + e.getMessage(), e);
    }
  }
}
