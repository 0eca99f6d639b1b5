package io.brook.storage.index;

import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machinery both segment indexes share: a file of fixed-size, big-endian entries sorted by
 * offset, memory-mapped, preallocated for appends and trimmed when the segment stops growing.
 *
 * <h2>File life cycle</h2>
 *
 * <ul>
 *   <li>A new file (absent or empty) is created and preallocated to {@code maxIndexSize} rounded
 *       down to a whole number of entries; it holds no entries yet.
 *   <li>An existing file holds {@code length / entrySize} entries. Opened writable, it is re-mapped
 *       at {@code maxIndexSize} (rounded down, but never below the entries it holds) so appends can
 *       continue. A file whose length is not a whole number of entries is left at its length: it is
 *       corrupt, {@link #sanityCheck()} says so, and appending to it fails as if it were full.
 *   <li>{@link #trimToValidSize()} (segment roll) and {@link #close()} shrink the file to exactly
 *       its entries, so a cleanly closed file's length gives its entry count.
 * </ul>
 *
 * <h2>Crash behaviour</h2>
 *
 * Entries are not checksummed. After an unclean shutdown the file still has its preallocated
 * length, so it reopens with every slot counted as an entry, the never-written ones reading as
 * zeros; {@link #sanityCheck()} detects those out-of-order trailing entries and the log rebuilds
 * the index from the segment's records. Indexes are derived data: nothing here tries to repair one.
 * The check is a guard, not a proof: entries removed by {@link #truncateTo} stay in their slots and
 * still look ordered, so after an unclean shutdown the log must rebuild the indexes of segments
 * past its recovery point whatever the check says.
 *
 * <h2>Thread safety</h2>
 *
 * <p>One writer at a time: the methods that change the index ({@code append}/{@code maybeAppend},
 * {@link #truncateTo}, {@link #truncate}, {@link #resize}, {@link #trimToValidSize}, {@link
 * #flush}, {@link #renameTo}, {@link #close}, {@link #deleteIfExists}) must be called under the
 * log's lock; this class takes none.
 *
 * <p>Readers ({@code lookup}, {@code entry}, {@code lastEntry}, {@link #entries()} and the other
 * getters) run concurrently with the writer and with each other, without locks. The writer stores
 * an entry's bytes first and then publishes the new count through a volatile field; a reader reads
 * that count, then the (volatile) mapping reference, never uses more entries than that mapping
 * holds, and reads only with absolute gets, so no reader ever touches shared buffer position state.
 * A resize replaces the mapping reference in one write; the old mapping is never forcibly unmapped
 * (a reader may still hold it) and is reclaimed by the garbage collector. The one exception is
 * {@link #closeAndUnmap()}, for an owner that guarantees no reader is left (the segment file pool
 * calls it only on files nobody has pinned). Hence a lookup racing an append sees the index before
 * or after the append; a lookup racing {@link #truncateTo} may answer from entries the truncation
 * just removed; neither throws nor reads outside a mapping.
 *
 * <p>One sequence is left to the caller: after a {@link #truncateTo}, do not shrink the file
 * ({@link #trimToValidSize()}, or {@link #resize} below the old size) while lookups that began
 * before the truncation may still be running, because the pages past the new end of file stop being
 * backed and touching them makes the operating system fault. So the log should trim only a segment
 * that rolls (its entries only grew) or closes (no reader left); {@link #deleteIfExists()} does not
 * trim, so readers racing a deletion keep a valid mapping.
 *
 * <p>After {@link #close()} the mapping is released: lookups answer as for an empty index (the
 * segment's start, always a safe place to begin a scan) and writer methods throw {@link
 * IllegalStateException}.
 *
 * @param <E> the entry type the index hands out.
 */
abstract sealed class AbstractIndex<E> implements Closeable permits OffsetIndex, TimeIndex {
  private static final Logger LOG = LoggerFactory.getLogger(AbstractIndex.class);

  /**
   * Bytes at the end of the index that a lookup binary-searches before the rest: 8 KiB.
   *
   * <p>Most lookups come from consumers and followers reading near the log end, so they land in the
   * last entries. A plain binary search over the whole file starts at its middle and probes about
   * log2(pages) distinct pages before its range fits in one (a dozen for a full 10 MiB index of
   * 2560 4-KiB pages), pages that nothing else keeps in memory and that the kernel may have
   * evicted: a page fault each. Appends keep the last pages resident, so trying the tail first
   * makes the common lookup touch only those. 8 KiB is two 4 KiB pages (the x86-64 and usual arm64
   * page size), so the section is still resident when the last entry sits just past a page
   * boundary. It covers 1024 offset entries, at least 4 MiB of log at the default {@code
   * index.interval.bytes} of 4096, or 682 time entries: a reader less than that far behind never
   * leaves the warm pages.
   */
  static final int WARM_SECTION_BYTES = 8 * 1024;

  /** What readers see once the index is closed: holds no entries. */
  private static final ByteBuffer RELEASED = ByteBuffer.allocate(0).asReadOnlyBuffer();

  private final long baseOffset;
  private final int entrySize;
  private final boolean writable;
  private final int maxIndexSize;
  private final int warmEntries;

  private volatile Path file;

  /** The current mapping; replaced whole on resize, never mutated in place except entry bytes. */
  private volatile ByteBuffer mmap;

  /** Published after the entry bytes are written: the happens-before edge readers rely on. */
  private volatile int entries;

  private volatile int maxEntries;
  private volatile boolean closed;

  AbstractIndex(Path file, long baseOffset, int maxIndexSize, boolean writable, int entrySize)
      throws IOException {
    this.file = Objects.requireNonNull(file, "file");
    if (baseOffset < 0) {
      throw new IllegalArgumentException("baseOffset must be >= 0, got " + baseOffset);
    }
    if (writable && maxIndexSize < entrySize) {
      throw new IllegalArgumentException(
          "maxIndexSize must hold at least one " + entrySize + "-byte entry, got " + maxIndexSize);
    }
    this.baseOffset = baseOffset;
    this.entrySize = entrySize;
    this.writable = writable;
    this.maxIndexSize = maxIndexSize;
    this.warmEntries = WARM_SECTION_BYTES / entrySize;

    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), writable ? "rw" : "r")) {
      long length = raf.length();
      if (length > Integer.MAX_VALUE) {
        throw new CorruptIndexException(
            "Index file " + file + " is " + length + " bytes, more than a mapping can hold");
      }
      long mapSize;
      if (!writable || length % entrySize != 0) {
        mapSize = length;
      } else if (length == 0) {
        mapSize = roundDown(maxIndexSize);
      } else {
        mapSize = Math.max(roundDown(maxIndexSize), length);
      }
      if (mapSize != length) {
        raf.setLength(mapSize);
      }
      this.mmap =
          raf.getChannel()
              .map(
                  writable ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY,
                  0,
                  mapSize);
      this.maxEntries = (int) (mapSize / entrySize);
      this.entries = (int) (length / entrySize);
    }
    LOG.debug(
        "index opened file={} baseOffset={} entries={} maxEntries={} writable={}",
        file,
        baseOffset,
        entries,
        maxEntries,
        writable);
  }

  // ---------------------------------------------------------------- entry layout (subclasses)

  /** The key lookups search: the absolute offset or the timestamp of the entry in {@code slot}. */
  abstract long keyAt(ByteBuffer buf, int slot);

  /** The absolute offset of the entry in {@code slot}: what {@link #truncateTo} searches. */
  abstract long offsetAt(ByteBuffer buf, int slot);

  /** Decodes the entry in {@code slot}. */
  abstract E entryAt(ByteBuffer buf, int slot);

  /** The answer when no entry qualifies: the start of the segment. */
  abstract E none();

  /** Throws {@link CorruptIndexException} if the first {@code n} entries break the ordering. */
  abstract void checkEntries(ByteBuffer buf, int n);

  // ---------------------------------------------------------------- getters

  /** The index file's current path (it changes on {@link #renameTo}). */
  public Path file() {
    return file;
  }

  /** The offset of the segment's first record; entries store offsets relative to it. */
  public long baseOffset() {
    return baseOffset;
  }

  /**
   * The {@code maxIndexSize} the index was opened with ({@code segment.index.bytes}): the size to
   * {@link #resize} back to when a trimmed segment becomes active again.
   */
  public int maxIndexSize() {
    return maxIndexSize;
  }

  /** The number of entries. */
  public int entries() {
    return entries;
  }

  /** How many entries the current mapping can hold. */
  public int maxEntries() {
    return maxEntries;
  }

  /** Whether the index can take no more ordinary appends; the log rolls the segment then. */
  public abstract boolean isFull();

  /** The bytes the entries occupy: {@code entries() * entrySize}. */
  public long sizeInBytes() {
    return (long) entries * entrySize;
  }

  /**
   * Whether {@code offset} can be stored relative to the base offset: entries keep {@code offset -
   * baseOffset} in 4 bytes, so it must lie in {@code [0, Integer.MAX_VALUE]}. The log rolls a new
   * segment before appending an offset that fails this.
   */
  public boolean canAppendOffset(long offset) {
    // baseOffset >= 0, so offset - baseOffset cannot overflow once offset >= baseOffset.
    return offset >= baseOffset && offset - baseOffset <= Integer.MAX_VALUE;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName()
        + "(file="
        + file
        + ", baseOffset="
        + baseOffset
        + ", entries="
        + entries
        + ", maxEntries="
        + maxEntries
        + ")";
  }

  // ---------------------------------------------------------------- read path (lock-free)

  /** The greatest entry whose lookup key is at most {@code target}, or {@link #none()}. */
  final E floorEntry(long target) {
    int count = entries; // count first, then the mapping: see the class Javadoc
    ByteBuffer buf = mmap;
    int n = readable(count, buf);
    int slot = floorSlot(buf, n, target, false);
    return slot < 0 ? none() : entryAt(buf, slot);
  }

  /**
   * The greatest entry whose lookup key is at most {@code target} ({@link #none()} if there is
   * none) and the entry after it (null if there is none), read from one snapshot of the index.
   */
  final Bracket<E> bracket(long target) {
    int count = entries;
    ByteBuffer buf = mmap;
    int n = readable(count, buf);
    int slot = floorSlot(buf, n, target, false);
    E floor = slot < 0 ? none() : entryAt(buf, slot);
    E next = slot + 1 < n ? entryAt(buf, slot + 1) : null;
    return new Bracket<>(floor, next);
  }

  /** Two neighbouring entries around a lookup key; {@code next} may be null. */
  record Bracket<E>(E floor, E next) {}

  /** The {@code n}th entry; {@link IndexOutOfBoundsException} unless 0 <= n < entries. */
  final E entryNumber(int n) {
    int count = entries;
    ByteBuffer buf = mmap;
    int readable = readable(count, buf);
    if (n < 0 || n >= readable) {
      throw new IndexOutOfBoundsException(
          "Entry " + n + " requested from " + file + " holding " + readable + " entries");
    }
    return entryAt(buf, n);
  }

  /** The last entry, or {@link #none()} when the index is empty. */
  final E last() {
    int count = entries;
    ByteBuffer buf = mmap;
    int n = readable(count, buf);
    return n == 0 ? none() : entryAt(buf, n - 1);
  }

  /** How many of {@code count} entries {@code buf} actually holds: never read past a mapping. */
  private int readable(int count, ByteBuffer buf) {
    return Math.min(count, buf.capacity() / entrySize);
  }

  /**
   * The slot of the greatest entry among the first {@code n} whose key (lookup key, or offset when
   * {@code byOffset}) is at most {@code target}, or -1 if there is none. Searches the warm tail
   * first (see {@link #WARM_SECTION_BYTES}). On entries that are not sorted (a reader racing a
   * truncation) it still returns a slot in {@code [-1, n)}.
   */
  private int floorSlot(ByteBuffer buf, int n, long target, boolean byOffset) {
    if (n == 0) {
      return -1;
    }
    int warmFirst = Math.max(0, n - warmEntries);
    if (key(buf, warmFirst, byOffset) <= target) {
      return floorIn(buf, warmFirst, n - 1, target, byOffset);
    }
    if (warmFirst == 0 || key(buf, 0, byOffset) > target) {
      return -1;
    }
    return floorIn(buf, 0, warmFirst - 1, target, byOffset);
  }

  /** Binary search in {@code [lo, hi]} given {@code key(lo) <= target}. */
  private int floorIn(ByteBuffer buf, int lo, int hi, long target, boolean byOffset) {
    while (lo < hi) {
      int mid = lo + ((hi - lo + 1) >>> 1);
      if (key(buf, mid, byOffset) <= target) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  private long key(ByteBuffer buf, int slot, boolean byOffset) {
    return byOffset ? offsetAt(buf, slot) : keyAt(buf, slot);
  }

  // ---------------------------------------------------------------- write path (one writer)

  /** The mapping to write entries into; throws if the index is read-only or closed. */
  final ByteBuffer writableMapping() {
    ensureWritable();
    return mmap;
  }

  /** Publishes a new entry count after the entry bytes are in the mapping. */
  final void publishEntries(int count) {
    entries = count;
  }

  /** Removes every entry whose offset is at least {@code offset}. */
  public void truncateTo(long offset) {
    ByteBuffer buf = writableMapping();
    int n = entries;
    int keep = offset <= baseOffset ? 0 : floorSlot(buf, n, offset - 1, true) + 1;
    if (keep < n) {
      entries = keep;
      LOG.debug("index truncated file={} toOffset={} entries={}", file, offset, keep);
    }
  }

  /**
   * Recovery of an index that was not closed cleanly, where the entry count read from the file's
   * length means nothing (a writable index is preallocated to {@code segment.index.bytes}): keeps
   * the leading entries that could have been appended one after another ({@link #follows}) and name
   * an offset at most {@code maxOffset}, and drops every later slot. Reads only the kept entries
   * and one more, never the whole preallocated file.
   *
   * @return the number of entries kept
   */
  public int truncateToTrustedPrefix(long maxOffset) {
    ByteBuffer buf = writableMapping();
    int n = readable(entries, buf);
    int keep = 0;
    while (keep < n && offsetAt(buf, keep) <= maxOffset && follows(buf, keep)) {
      keep++;
    }
    entries = keep;
    return keep;
  }

  /**
   * Whether the entry in {@code slot} could have been appended after the one in {@code slot - 1}
   * (for slot 0: as the first entry). An unwritten slot reads as zeros and must not qualify.
   */
  abstract boolean follows(ByteBuffer buf, int slot);

  /** Removes every entry. */
  public void truncate() {
    ensureWritable();
    entries = 0;
    LOG.debug("index truncated file={} entries=0", file);
  }

  /**
   * Sets the file and its mapping to {@code newSize} rounded down to a whole number of entries; the
   * entries are kept. Growing lets appends continue (a segment that becomes active again);
   * shrinking to the entries is {@link #trimToValidSize()}. Readers holding the previous mapping
   * keep using it.
   *
   * @throws IllegalArgumentException if the rounded size cannot hold the current entries.
   */
  public void resize(int newSize) throws IOException {
    ensureWritable();
    if (newSize < 0) {
      throw new IllegalArgumentException("newSize must be >= 0, got " + newSize);
    }
    int rounded = roundDown(newSize);
    if (rounded < sizeInBytes()) {
      throw new IllegalArgumentException(
          "Cannot resize "
              + file
              + " to "
              + rounded
              + " bytes: its "
              + entries
              + " entries take "
              + sizeInBytes());
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      if (raf.length() == rounded && mmap.capacity() == rounded) {
        return;
      }
      raf.setLength(rounded);
      mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, rounded);
      maxEntries = rounded / entrySize;
    }
    LOG.debug("index resized file={} bytes={} entries={}", file, rounded, entries);
  }

  /** Shrinks the file and its mapping to exactly the entries; the segment stops growing. */
  public void trimToValidSize() throws IOException {
    resize((int) sizeInBytes());
  }

  /**
   * Forces the entries written through the mapping to disk; nothing to do on a read-only index.
   *
   * @throws IllegalStateException if the index is closed.
   */
  public void flush() {
    if (closed) {
      throw new IllegalStateException("Index " + file + " is closed");
    }
    if (writable && mmap instanceof MappedByteBuffer mapped) {
      mapped.force();
    }
  }

  /**
   * Checks the whole file: its length is a whole number of entries and the entries respect the
   * index's ordering. Reads every entry, one pass over the file: meant for loading a segment, not
   * for a hot path.
   *
   * @throws CorruptIndexException if a check fails; the log then rebuilds the index.
   * @throws UncheckedIOException if the file's length cannot be read.
   */
  public void sanityCheck() {
    long length;
    try {
      length = Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the size of " + file, e);
    }
    if (length % entrySize != 0) {
      throw corrupt(
          "its length " + length + " is not a multiple of the entry size " + entrySize + " bytes");
    }
    int count = entries;
    ByteBuffer buf = mmap;
    checkEntries(buf, readable(count, buf));
  }

  /** A {@link CorruptIndexException} naming this file. */
  final CorruptIndexException corrupt(String problem) {
    return new CorruptIndexException("Corrupt index file " + file + ": " + problem);
  }

  /**
   * Moves the file to {@code target} (atomically where the file system can), e.g. to mark a segment
   * deleted. The mapping stays valid, so the index keeps working under its new name.
   */
  public void renameTo(Path target) throws IOException {
    Path source = file;
    try {
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(source, target, StandardCopyOption.REPLACE_EXISTING);
    }
    file = target;
    LOG.debug("index renamed from={} to={}", source, target);
  }

  /**
   * Releases the mapping and deletes the file. Does not trim first, so readers still holding the
   * mapping stay within a file that keeps its length until they let go of it.
   *
   * @return whether a file was deleted.
   */
  public boolean deleteIfExists() throws IOException {
    release();
    boolean deleted = Files.deleteIfExists(file);
    LOG.debug("index deleted file={} existed={}", file, deleted);
    return deleted;
  }

  /**
   * Trims the file to its entries (when writable) and releases the mapping; idempotent. The mapping
   * is dropped rather than forcibly unmapped, so a racing reader can finish with it.
   */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    try {
      if (writable) {
        trimToValidSize();
      }
    } finally {
      release();
    }
  }

  /**
   * Releases the mapping without touching the file, for an index whose file was already unlinked
   * (its path may name a new file by now); idempotent.
   */
  public void abandon() {
    release();
    LOG.debug("index released file={}", file);
  }

  /**
   * Like {@link #close()} (trims a writable index to its entries), but unmaps the mapping at once
   * instead of leaving it to the garbage collector (see {@link Unmapper}). Only for an owner that
   * guarantees no reader still holds the mapping: touching it afterwards crashes the JVM.
   */
  public void closeAndUnmap() throws IOException {
    if (closed) {
      return;
    }
    ByteBuffer mapping = mmap;
    release();
    try {
      if (writable) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
          raf.setLength(sizeInBytes());
        }
      }
    } finally {
      Unmapper.unmap(mapping);
    }
  }

  /** {@link #abandon()}, unmapping at once; same guarantee needed as {@link #closeAndUnmap()}. */
  public void abandonAndUnmap() {
    if (closed) {
      return;
    }
    ByteBuffer mapping = mmap;
    abandon();
    Unmapper.unmap(mapping);
  }

  private void release() {
    closed = true;
    mmap = RELEASED;
  }

  private void ensureWritable() {
    if (closed) {
      throw new IllegalStateException("Index " + file + " is closed");
    }
    if (!writable) {
      throw new IllegalStateException("Index " + file + " is open read-only");
    }
  }

  private int roundDown(int size) {
    return size - size % entrySize;
  }
}
