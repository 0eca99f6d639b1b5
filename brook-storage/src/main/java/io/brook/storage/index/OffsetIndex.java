package io.brook.storage.index;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A segment's sparse offset index ({@code <base offset>.index}): maps a log offset to the byte
 * position in the segment's {@code .log} file where a record batch at or before that offset starts.
 *
 * <h2>Layout</h2>
 *
 * A sequence of 8-byte entries, big-endian, sorted by offset, nothing else (no header):
 *
 * <pre>
 * byte  0               4               8
 *       +---------------+---------------+
 *       | relative      | position      |   entry n sits at byte 8 * n
 *       | offset (int)  | (int)         |
 *       +---------------+---------------+
 * </pre>
 *
 * <ul>
 *   <li><b>relative offset</b>: the batch's offset minus the segment's base offset, in {@code [0,
 *       Integer.MAX_VALUE]} (see {@link #canAppendOffset}); strictly increasing.
 *   <li><b>position</b>: the byte position of that batch in the segment file; non-decreasing.
 * </ul>
 *
 * <h2>Sparseness and lookups</h2>
 *
 * The log adds an entry only every {@code index.interval.bytes} of appended data, so most offsets
 * have none. {@link #lookup} returns the greatest entry whose offset is at most the target: the
 * reader scans the segment forward from that position. When no entry qualifies (an empty index, or
 * a target below the first entry), it returns {@code (baseOffset, 0)}: the segment's first batch,
 * always a correct place to start scanning.
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
 * with {@link TimeIndex}, has the details.
 */
public final class OffsetIndex extends AbstractIndex<OffsetPosition> {

  /** Bytes per entry: a 4-byte relative offset and a 4-byte file position. */
  public static final int ENTRY_SIZE = Integer.BYTES + Integer.BYTES;

  private static final int POSITION_FIELD = Integer.BYTES;

  /** Opens (creating and preallocating if absent or empty) {@code file} for appends. */
  public OffsetIndex(Path file, long baseOffset, int maxIndexSize) throws IOException {
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
  public OffsetIndex(Path file, long baseOffset, int maxIndexSize, boolean writable)
      throws IOException {
    super(file, baseOffset, maxIndexSize, writable, ENTRY_SIZE);
  }

  /** {@code entries() >= maxEntries()}. */
  @Override
  public boolean isFull() {
    return entries() >= maxEntries();
  }

  /**
   * The greatest entry whose offset is at most {@code targetOffset}, or {@code (baseOffset, 0)} if
   * there is none. Lock-free, allocates only the result.
   */
  public OffsetPosition lookup(long targetOffset) {
    return floorEntry(targetOffset);
  }

  /**
   * {@link #lookup} and the entry after the one it finds: the greatest entry whose offset is at
   * most {@code targetOffset} ({@code (baseOffset, 0)} if there is none) as {@code floor}, and the
   * next entry, whose offset is above the target, as {@code next} (null when there is none). The
   * log names each entry by a batch's last offset at that batch's position, so the batch holding
   * the target lies after {@code floor}'s and, when every batch is indexed, exactly at {@code
   * next}'s. Lock-free, allocates only the result.
   */
  public Neighbours neighbours(long targetOffset) {
    Bracket<OffsetPosition> bracket = bracket(targetOffset);
    return new Neighbours(bracket.floor(), bracket.next());
  }

  /** What {@link #neighbours} finds; {@code next} is null when {@code floor} is the last entry. */
  public record Neighbours(OffsetPosition floor, OffsetPosition next) {}

  /**
   * The {@code n}th entry (0-based), with its absolute offset.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= n < entries()}.
   */
  public OffsetPosition entry(int n) {
    return entryNumber(n);
  }

  /** The last entry, or {@code (baseOffset, 0)} when the index is empty. */
  public OffsetPosition lastEntry() {
    return last();
  }

  /**
   * Appends an entry.
   *
   * @param offset absolute offset of a batch: greater than the last entry's offset, and passing
   *     {@link #canAppendOffset}.
   * @param position the batch's byte position in the segment: not negative and not below the last
   *     entry's position.
   * @throws IllegalArgumentException if {@code offset} or {@code position} break those rules.
   * @throws IllegalStateException if the index is full, read-only or closed.
   */
  public void append(long offset, int position) {
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
    if (position < 0) {
      throw new IllegalArgumentException("Position must be >= 0, got " + position);
    }
    if (n > 0) {
      long lastOffset = offsetAt(buf, n - 1);
      int lastPosition = positionAt(buf, n - 1);
      if (offset <= lastOffset) {
        throw new IllegalArgumentException(
            "Offset " + offset + " is not above the last entry's offset " + lastOffset);
      }
      if (position < lastPosition) {
        throw new IllegalArgumentException(
            "Position " + position + " is below the last entry's position " + lastPosition);
      }
    }
    if (n >= maxEntries()) {
      throw new IllegalStateException(
          "Index " + file() + " is full (" + n + " of " + maxEntries() + " entries)");
    }
    int at = n * ENTRY_SIZE;
    buf.putInt(at, (int) (offset - baseOffset()));
    buf.putInt(at + POSITION_FIELD, position);
    publishEntries(n + 1);
  }

  @Override
  long keyAt(ByteBuffer buf, int slot) {
    return offsetAt(buf, slot);
  }

  @Override
  long offsetAt(ByteBuffer buf, int slot) {
    return baseOffset() + buf.getInt(slot * ENTRY_SIZE);
  }

  private static int positionAt(ByteBuffer buf, int slot) {
    return buf.getInt(slot * ENTRY_SIZE + POSITION_FIELD);
  }

  /**
   * The first entry is never the segment's first batch (an entry is added only after {@code
   * index.interval.bytes}), so a real one has an offset above the base and a position above 0.
   */
  @Override
  boolean follows(ByteBuffer buf, int slot) {
    int relative = buf.getInt(slot * ENTRY_SIZE);
    int position = positionAt(buf, slot);
    int previousRelative = slot == 0 ? 0 : buf.getInt((slot - 1) * ENTRY_SIZE);
    int previousPosition = slot == 0 ? 0 : positionAt(buf, slot - 1);
    return relative > previousRelative && position > previousPosition;
  }

  @Override
  OffsetPosition entryAt(ByteBuffer buf, int slot) {
    return new OffsetPosition(offsetAt(buf, slot), positionAt(buf, slot));
  }

  @Override
  OffsetPosition none() {
    return new OffsetPosition(baseOffset(), 0);
  }

  /**
   * Checks, besides the file length, that every offset is at least the base offset and strictly
   * above the previous one, and that positions are not negative and never decrease.
   */
  @Override
  public void sanityCheck() {
    super.sanityCheck();
  }

  @Override
  void checkEntries(ByteBuffer buf, int n) {
    int previousRelative = -1;
    int previousPosition = 0;
    for (int slot = 0; slot < n; slot++) {
      int relative = buf.getInt(slot * ENTRY_SIZE);
      int position = positionAt(buf, slot);
      if (relative < 0) {
        throw corrupt(
            "entry " + slot + " has relative offset " + relative + ", below the base offset");
      }
      if (relative <= previousRelative) {
        throw corrupt(
            "entry "
                + slot
                + " has offset "
                + (baseOffset() + relative)
                + ", not above the previous entry's "
                + (baseOffset() + previousRelative));
      }
      if (position < previousPosition) {
        throw corrupt(
            "entry "
                + slot
                + " has position "
                + position
                + ", below the previous entry's "
                + previousPosition);
      }
      previousRelative = relative;
      previousPosition = position;
    }
  }
}
