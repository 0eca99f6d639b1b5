package io.brook.storage.index;

/**
 * One {@link OffsetIndex} entry: the log offset of a record batch and the byte position in the
 * segment's {@code .log} file where that batch starts.
 *
 * @param offset the absolute log offset (the index stores it relative to the segment's base
 *     offset).
 * @param position the byte position of the batch in the segment file.
 */
public record OffsetPosition(long offset, int position) {}
