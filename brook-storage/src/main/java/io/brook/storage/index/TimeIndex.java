package io.brook.storage.index;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A segment's sparse time index ({@code <base offset>.timeindex}): maps "the largest timestamp seen
 * so far in this segment" to the offset of the record that carried it, to find where to start
 * reading for a timestamp ({@code ListOffsets}) and to age segments for retention.
 *
 * <h2>Layout</h2>
 *
 * A sequence of 12-byte entries, big-endian, nothing else (no header):
 *
 * <pre>
 * byte  0                               8               12
 *       +-------------------------------+---------------+
 *       | timestamp (long, ms)          | relative      |   entry n sits at byte 12 * n
 *       |                               | offset (int)  |
 *       +-------------------------------+---------------+
 * </pre>
 *
 * <ul>
 *   <li><b>timestamp</b>: milliseconds since the epoch; strictly increasing, because an entry is
 *       added only when the segment's maximum timestamp grows ({@link #maybeAppend}).
 *   <li><b>relative offset</b>: the offset of the record with that timestamp minus the segment's
 *       base offset, in {@code [0, Integer.MAX_VALUE]}; non-decreasing.
 * </ul>
 *
 * <h2>Sparseness and lookups</h2>
 *
 * The log offers an entry alongside each offset-index entry (every {@code index.interval.bytes}),
 * and the index keeps it only if the maximum timestamp grew, so records between entries, and
 * records with smaller timestamps than an earlier one, have none. {@link #lookup} returns the
 * greatest entry whose timestamp is at most the target; when none qualifies (an empty index, or a
 * target below the first timestamp) it returns {@code (-1, baseOffset)}: "no timestamp, start of
 * the segment", always a correct place to start scanning.
 *
 * <h2>Full</h2>
 *
 * {@link #isFull()} already holds with one slot left: when the segment rolls, the log appends its
 * final maximum timestamp with {@code skipFullCheck}, and that entry must always fit.
 *
 * <h2>Files and crashes</h2>
 *
 * A new file is preallocated to {@code maxIndexSize} rounded down to whole entries, and an existing
 * one opened writable is re-mapped at that size; {@link #trimToValidSize()} and {@link #close()}
 * shrink it to its entries, so a cleanly closed file holds exactly {@code length / ENTRY_SIZE}
 * entries. Entries are not checksummed. After an unclean shutdown the file still has its
 * preallocated length and reopens with every slot counted, the unwritten ones reading as zeros:
 * {@link #sanityCheck()} reports them as out of order and the log rebuilds the index from the
 * segment (which it must do after an unclean shutdown anyway: entries removed by {@link
 * #truncateTo} stay in their slots in order, and no check can tell them from live ones). A file
 * that is not a whole number of entries is left at its length (full, and rejected by {@link
 * #sanityCheck()}).
 *
 * <h2>Thread safety</h2>
 *
 * One writer at a time: the methods that change the index or its file must be called under the
 * log's lock; the index takes none itself. Lookups ({@link #lookup}, {@link #entry}, {@link
 * #lastEntry}, {@link #entries()}) take no lock, run from any number of threads concurrently with
 * the writer and allocate only their result: the entry count is published through a volatile field
 * after the entry's bytes, the mapping reference is swapped whole on resize and the old mapping
 * left to the garbage collector, never forcibly unmapped. A lookup racing an append sees the index
 * before or after it; one racing {@link #truncateTo} may answer from a removed entry; neither
 * throws nor reads outside the mapping. After a {@link #truncateTo}, the writer must not shrink the
 * file while lookups begun before it may still run (pages past the new end of file fault), so the
 * log should trim only on roll (entries only grew) and on close (no reader left). After {@link
 * #close()} lookups answer as for an empty index. {@code AbstractIndex}, the implementation shared
 * with {@link OffsetIndex}, has the details.
 */
public final class TimeIndex extends AbstractIndex<TimestampOffset> {

  /** Bytes per entry: an 8-byte timestamp and a 4-byte relative offset. */
  public static final int ENTRY_SIZE = Long.BYTES + Integer.BYTES;

  private static final int OFFSET_FIELD = Long.BYTES;

  /** Opens (creating and preallocating if absent or empty) {@code file} for appends. */
  public TimeIndex(Path file, long baseOffset, int maxIndexSize) throws IOException {
    this(file, baseOffset, maxIndexSize, true);
  }

  /**
   * Opens {@code file}. Writable: creates and preallocates it to {@code maxIndexSize} (rounded down
   * to a whole number of entries) if absent or empty, or re-maps an existing file at that size so
   * appends continue. Read-only: maps the existing file as it is.
   *
   * @throws IllegalArgumentException if {@code baseOffset} is negative, or writable with {@code
   *     maxIndexSize} smaller than one entry.
   * @throws IOException if the file cannot be opened (read-only and absent included) or mapped.
   */
  public TimeIndex(Path file, long baseOffset, int maxIndexSize, boolean writable)
      throws IOException {
    super(file, baseOffset, maxIndexSize, writable, ENTRY_SIZE);
  }

  /**
   * {@code entries() >= maxEntries() - 1}: the last slot is kept for the entry the log appends with
   * {@code skipFullCheck} when the segment rolls.
   */
  @Override
  public boolean isFull() {
    return entries() >= maxEntries() - 1;
  }

  /**
   * The greatest entry whose timestamp is at most {@code targetTimestamp}, or {@code (-1,
   * baseOffset)} if there is none. Lock-free, allocates only the result.
   */
  public TimestampOffset lookup(long targetTimestamp) {
    return floorEntry(targetTimestamp);
  }

  /**
   * The {@code n}th entry (0-based), with its absolute offset.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= n < entries()}.
   */
  public TimestampOffset entry(int n) {
    return entryNumber(n);
  }

  /** The last entry, or {@code (-1, baseOffset)} when the index is empty. */
  public TimestampOffset lastEntry() {
    return last();
  }

  /** {@link #maybeAppend(long, long, boolean) maybeAppend(timestamp, offset, false)}. */
  public void maybeAppend(long timestamp, long offset) {
    maybeAppend(timestamp, offset, false);
  }

  /**
   * Appends {@code (timestamp, offset)} if {@code timestamp} is greater than the last entry's (than
   * -1 on an empty index); otherwise does nothing.
   *
   * @param timestamp the segment's maximum timestamp so far.
   * @param offset the absolute offset of the record carrying it: not below the last entry's offset
   *     and passing {@link #canAppendOffset}.
   * @param skipFullCheck append even if {@link #isFull()}, into the slot kept free for the final
   *     entry at roll; still refused when every slot is taken.
   * @throws IllegalArgumentException if {@code offset} breaks those rules (checked even when the
   *     timestamp does not grow).
   * @throws IllegalStateException if an entry is due but there is no room for it, or the index is
   *     read-only or closed.
   */
  public void maybeAppend(long timestamp, long offset, boolean skipFullCheck) {
    ByteBuffer buf = writableMapping();
    int n = entries();
    if (!canAppendOffset(offset)) {
      throw new IllegalArgumentException(
          "Offset "
              + offset
              + " does not fit in "
              + file()
              + " with base offset "
              + baseOffset()
              + " (relative offsets are 0.."
              + Integer.MAX_VALUE
              + ")");
    }
    long lastTimestamp = TimestampOffset.NO_TIMESTAMP;
    if (n > 0) {
      long lastOffset = offsetAt(buf, n - 1);
      if (offset < lastOffset) {
        throw new IllegalArgumentException(
            "Offset " + offset + " is below the last entry's offset " + lastOffset);
      }
      lastTimestamp = keyAt(buf, n - 1);
    }
    if (timestamp <= lastTimestamp) {
      return;
    }
    if (n >= maxEntries() || (!skipFullCheck && isFull())) {
      throw new IllegalStateException(
          "Index "
              + file()
              + " is full ("
              + n
              + " of "
              + maxEntries()
              + " entries, skipFullCheck="
              + skipFullCheck
              + ")");
    }
    int at = n * ENTRY_SIZE;
    buf.putLong(at, timestamp);
    buf.putInt(at + OFFSET_FIELD, (int) (offset - baseOffset()));
    publishEntries(n + 1);
  }

  @Override
  long keyAt(ByteBuffer buf, int slot) {
    return buf.getLong(slot * ENTRY_SIZE);
  }

  @Override
  long offsetAt(ByteBuffer buf, int slot) {
    return baseOffset() + buf.getInt(slot * ENTRY_SIZE + OFFSET_FIELD);
  }

  @Override
  TimestampOffset entryAt(ByteBuffer buf, int slot) {
    return new TimestampOffset(keyAt(buf, slot), offsetAt(buf, slot));
  }

  @Override
  TimestampOffset none() {
    return new TimestampOffset(TimestampOffset.NO_TIMESTAMP, baseOffset());
  }

  /**
   * Checks, besides the file length, that timestamps are not negative and strictly increase, and
   * that offsets are at least the base offset and never decrease.
   */
  @Override
  public void sanityCheck() {
    super.sanityCheck();
  }

  /** Timestamps strictly increase from above -1, offsets never decrease. */
  @Override
  boolean follows(ByteBuffer buf, int slot) {
    long timestamp = keyAt(buf, slot);
    int relative = buf.getInt(slot * ENTRY_SIZE + OFFSET_FIELD);
    long previousTimestamp = slot == 0 ? TimestampOffset.NO_TIMESTAMP : keyAt(buf, slot - 1);
    int previousRelative = slot == 0 ? 0 : buf.getInt((slot - 1) * ENTRY_SIZE + OFFSET_FIELD);
    return timestamp > previousTimestamp && relative >= previousRelative;
  }

  @Override
  void checkEntries(ByteBuffer buf, int n) {
    long previousTimestamp = TimestampOffset.NO_TIMESTAMP;
    int previousRelative = 0;
    for (int slot = 0; slot < n; slot++) {
      long timestamp = keyAt(buf, slot);
      int relative = buf.getInt(slot * ENTRY_SIZE + OFFSET_FIELD);
      if (relative < 0) {
        throw corrupt(
            "entry " + slot + " has relative offset " + relative + ", below the base offset");
      }
      if (timestamp <= previousTimestamp) {
        throw corrupt(
            "entry "
                + slot
                + " has timestamp "
                + timestamp
                + ", not above the previous entry's "
                + previousTimestamp);
      }
      if (relative < previousRelative) {
        throw corrupt(
            "entry "
                + slot
                + " has offset "
                + (baseOffset() + relative)
                + ", below the previous entry's "
                + (baseOffset() + previousRelative));
      }
      previousTimestamp = timestamp;
      previousRelative = relative;
    }
  }
}
