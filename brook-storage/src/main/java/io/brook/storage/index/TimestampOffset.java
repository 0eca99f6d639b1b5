package io.brook.storage.index;

/**
 * One {@link TimeIndex} entry: the largest timestamp seen so far in a segment and the offset of the
 * record that carried it.
 *
 * @param timestamp milliseconds since the epoch, or {@link #NO_TIMESTAMP} when there is none.
 * @param offset the absolute log offset (the index stores it relative to the segment's base
 *     offset).
 */
public record TimestampOffset(long timestamp, long offset) {

  /** "No timestamp": the same value Kafka uses for a record without one. */
  public static final long NO_TIMESTAMP = -1L;
}
