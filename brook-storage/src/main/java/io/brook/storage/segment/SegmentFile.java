package io.brook.storage.segment;

import io.brook.storage.index.OffsetIndex;
import io.brook.storage.index.TimeIndex;
import io.brook.storage.txn.TransactionIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.apache.kafka.common.record.internal.FileRecords;

/**
 * The files of one segment behind a {@link PooledHandle}: the {@code .log} file, opened when first
 * pinned, and its two indexes, mapped when first looked up or appended to while pinned. The pool
 * closes all three together when the segment goes idle, so one pool slot bounds one descriptor and
 * two mappings ({@code vm.max_map_count} counts mappings, not descriptors).
 *
 * <p>Indexes map writable while the segment is active ({@link #setIndexesWritable}) and read-only
 * otherwise; a writable index closed by the pool is trimmed to its entries and grows back to {@code
 * segment.index.bytes} when mapped again.
 *
 * <p>The paths follow renames ({@link #renameAll}), so a reopen after a segment was renamed to
 * {@code .deleted} or swapped by the cleaner finds the same inode it was reading before.
 *
 * <p>Thread-safety: {@link #records()}, {@link #offsetIndex()} and {@link #timeIndex()} may be
 * called only while pinned; the values they return must not be used after the matching unpin (the
 * pool unmaps the indexes when it closes the file, and touching an unmapped buffer crashes the
 * JVM). Opening, closing, renaming and switching the index mode run under this handle's monitor.
 */
public final class SegmentFile extends PooledHandle {
  private final long baseOffset;
  private final int maxIndexSize;

  private volatile Path logPath;
  private volatile Path offsetIndexPath;
  private volatile Path timeIndexPath;
  private volatile Path txnIndexPath;
  private volatile boolean indexesWritable;

  /** Opened per write and not pooled: see {@link TransactionIndex}. */
  private final TransactionIndex txnIndex = new TransactionIndex(() -> txnIndexPath);

  /** The files were unlinked: closing must not trim (that would reopen the path). Monitor. */
  private boolean deleted;

  // Non-null only while open; replaced only under the monitor.
  private volatile FileRecords records;
  private volatile OffsetIndex offsetIndex;
  private volatile TimeIndex timeIndex;

  private SegmentFile(
      FileHandlePool pool,
      long baseOffset,
      int maxIndexSize,
      Path logPath,
      Path offsetIndexPath,
      Path timeIndexPath,
      boolean indexesWritable) {
    super(pool);
    this.baseOffset = baseOffset;
    this.maxIndexSize = maxIndexSize;
    this.logPath = logPath;
    this.offsetIndexPath = offsetIndexPath;
    this.timeIndexPath = timeIndexPath;
    this.txnIndexPath = SegmentFiles.txnIndexFileFor(logPath);
    this.indexesWritable = indexesWritable;
  }

  /**
   * The files of a new, empty segment, replacing any stale ones with the same base offset; the
   * names end in {@code suffix} after the usual ones (the cleaner's {@code .cleaned}), or not.
   * Creates all three now (recovery and renames expect them), empty and closed: the log file opens
   * when first pinned and the indexes map writable, growing to {@code segment.index.bytes}, when
   * first used, as after the pool closed an empty segment. Creating a log thus costs no descriptor
   * and no mapping, and does not push another segment out of the pool.
   */
  static SegmentFile createEmpty(
      FileHandlePool pool, Path dir, long baseOffset, int maxIndexSize, String suffix)
      throws IOException {
    Path logFile = withSuffix(SegmentFiles.logFile(dir, baseOffset), suffix);
    Path offsetFile = withSuffix(SegmentFiles.offsetIndexFile(dir, baseOffset), suffix);
    Path timeFile = withSuffix(SegmentFiles.timeIndexFile(dir, baseOffset), suffix);
    createReplacing(offsetFile);
    createReplacing(timeFile);
    Files.deleteIfExists(SegmentFiles.txnIndexFileFor(logFile));
    createReplacing(logFile);
    return new SegmentFile(pool, baseOffset, maxIndexSize, logFile, offsetFile, timeFile, true);
  }

  /** Creates {@code file} empty, replacing a stale one: a single system call when there is none. */
  private static void createReplacing(Path file) throws IOException {
    try {
      Files.createFile(file);
    } catch (FileAlreadyExistsException e) {
      Files.delete(file);
      Files.createFile(file);
    }
  }

  /** The files of an existing segment, opened on first use; indexes map writable if asked. */
  static SegmentFile existing(
      FileHandlePool pool, Path dir, long baseOffset, int maxIndexSize, boolean indexesWritable) {
    return new SegmentFile(
        pool,
        baseOffset,
        maxIndexSize,
        SegmentFiles.logFile(dir, baseOffset),
        SegmentFiles.offsetIndexFile(dir, baseOffset),
        SegmentFiles.timeIndexFile(dir, baseOffset),
        indexesWritable);
  }

  private static Path withSuffix(Path file, String suffix) {
    return suffix.isEmpty() ? file : file.resolveSibling(file.getFileName() + suffix);
  }

  public Path logPath() {
    return logPath;
  }

  Path offsetIndexPath() {
    return offsetIndexPath;
  }

  Path timeIndexPath() {
    return timeIndexPath;
  }

  /** The segment's aborted transactions; its file exists only once one was recorded. */
  public TransactionIndex txnIndex() {
    return txnIndex;
  }

  @Override
  protected void openFiles() throws IOException {
    Path path = logPath;
    // FileRecords opens "rw", which would create a missing file: a deleted segment must not
    // come back empty.
    if (!Files.exists(path)) {
      throw new NoSuchFileException(path.toString());
    }
    records = FileRecords.open(path.toFile(), true, true, 0, false);
  }

  @Override
  protected void closeFiles() throws IOException {
    IOException failure = null;
    try {
      closeAndUnmapIndexes();
    } catch (IOException e) {
      failure = e;
    }
    FileRecords open = records;
    records = null;
    if (open != null) {
      try {
        open.close();
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Called only with no pin held, so no lookup can be using a mapping: they are unmapped at once
   * rather than by the garbage collector, keeping mappings within the pool's bound too.
   */
  private void closeAndUnmapIndexes() throws IOException {
    OffsetIndex offsets = offsetIndex;
    TimeIndex times = timeIndex;
    offsetIndex = null;
    timeIndex = null;
    if (deleted) {
      // A new segment may already live under the old name: leave every path alone.
      if (offsets != null) {
        offsets.abandonAndUnmap();
      }
      if (times != null) {
        times.abandonAndUnmap();
      }
      return;
    }
    try {
      if (offsets != null) {
        offsets.closeAndUnmap();
      }
    } finally {
      if (times != null) {
        times.closeAndUnmap();
      }
    }
  }

  /** Drops the mappings for the garbage collector: concurrent pinned lookups may still use them. */
  private void closeIndexes() throws IOException {
    OffsetIndex offsets = offsetIndex;
    TimeIndex times = timeIndex;
    offsetIndex = null;
    timeIndex = null;
    if (deleted) {
      // A new segment may already live under the old name: leave every path alone.
      if (offsets != null) {
        offsets.abandon();
      }
      if (times != null) {
        times.abandon();
      }
      return;
    }
    try {
      if (offsets != null) {
        offsets.close();
      }
    } finally {
      if (times != null) {
        times.close();
      }
    }
  }

  /** The open log file; only while pinned. */
  public FileRecords records() {
    FileRecords open = records;
    if (open == null) {
      throw new IllegalStateException("segment file used without a pin: " + logPath);
    }
    return open;
  }

  /** The offset index, mapped on first use; only while pinned. */
  public OffsetIndex offsetIndex() throws IOException {
    OffsetIndex index = offsetIndex;
    return index != null ? index : mapOffsetIndex();
  }

  /** The time index, mapped on first use; only while pinned. */
  public TimeIndex timeIndex() throws IOException {
    TimeIndex index = timeIndex;
    return index != null ? index : mapTimeIndex();
  }

  /** {@link #pin()} for read paths that cannot throw a checked exception. */
  public void pinUnchecked() {
    try {
      pin();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + logPath, e);
    }
  }

  /** {@link #offsetIndex()} for read paths that cannot throw a checked exception. */
  public OffsetIndex offsetIndexUnchecked() {
    try {
      return offsetIndex();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot map the offset index of " + logPath, e);
    }
  }

  /** {@link #timeIndex()} for read paths that cannot throw a checked exception. */
  public TimeIndex timeIndexUnchecked() {
    try {
      return timeIndex();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot map the time index of " + logPath, e);
    }
  }

  private synchronized OffsetIndex mapOffsetIndex() throws IOException {
    if (offsetIndex == null) {
      offsetIndex = new OffsetIndex(offsetIndexPath, baseOffset, maxIndexSize, indexesWritable);
    }
    return offsetIndex;
  }

  private synchronized TimeIndex mapTimeIndex() throws IOException {
    if (timeIndex == null) {
      timeIndex = new TimeIndex(timeIndexPath, baseOffset, maxIndexSize, indexesWritable);
    }
    return timeIndex;
  }

  public boolean indexesWritable() {
    return indexesWritable;
  }

  /**
   * Switches how the indexes map from now on. Making them writable drops read-only mappings (a
   * concurrent lookup on a dropped mapping answers "segment start", which is always safe); making
   * them read-only keeps the current mappings until the pool closes the file, so a rolled segment
   * is not re-grown to {@code segment.index.bytes} when it maps again. Writer only, while pinned.
   */
  public synchronized void setIndexesWritable(boolean writable) throws IOException {
    if (writable && !indexesWritable) {
      closeIndexes();
    }
    indexesWritable = writable;
  }

  /**
   * Empties both index files and maps them writable again, with no entries. Writer only, while
   * pinned, when no reader can hold the old mappings (recovery).
   *
   * <p>The files are cut to nothing in place, not deleted and created again: a restart after an
   * unclean shutdown resets the indexes of every partition's active segment, and on ext4 creating
   * tens of thousands of files right after deleting as many scans the inode bitmaps past every
   * recently deleted inode, which made up a fifth of such a restart.
   */
  public synchronized void recreateIndexes() throws IOException {
    emptyIndexes();
    mapOffsetIndex();
    mapTimeIndex();
  }

  /**
   * {@link #recreateIndexes} without mapping them: they map writable when first used. For a segment
   * with an empty log file, whose indexes need no entry.
   */
  public synchronized void emptyIndexes() throws IOException {
    OffsetIndex offsets = offsetIndex;
    TimeIndex times = timeIndex;
    offsetIndex = null;
    timeIndex = null;
    if (offsets != null) {
      offsets.abandon();
    }
    if (times != null) {
      times.abandon();
    }
    empty(offsetIndexPath);
    empty(timeIndexPath);
    indexesWritable = true;
  }

  private static void empty(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(0);
    } catch (NoSuchFileException e) {
      // Mapping it creates it.
    }
  }

  /**
   * Renames the three files, indexes first and the log file last (see {@code
   * LogSegment#changeFileSuffixes}). Open files and mappings stay valid; closed ones reopen under
   * the new names.
   */
  public synchronized void renameAll(Path newLog, Path newOffsetIndex, Path newTimeIndex)
      throws IOException {
    // First, so that a swap interrupted before the log's rename still finds it (SegmentSwap).
    Path newTxnIndex = SegmentFiles.txnIndexFileFor(newLog);
    synchronized (txnIndex) {
      moveIfExists(txnIndexPath, newTxnIndex);
      txnIndexPath = newTxnIndex;
    }
    OffsetIndex offsets = offsetIndex;
    if (offsets != null) {
      offsets.renameTo(newOffsetIndex);
    } else {
      moveIfExists(offsetIndexPath, newOffsetIndex);
    }
    offsetIndexPath = newOffsetIndex;
    TimeIndex times = timeIndex;
    if (times != null) {
      times.renameTo(newTimeIndex);
    } else {
      moveIfExists(timeIndexPath, newTimeIndex);
    }
    timeIndexPath = newTimeIndex;
    FileRecords open = records;
    if (open != null) {
      open.renameTo(newLog.toFile());
    } else {
      move(logPath, newLog);
    }
    logPath = newLog;
  }

  /**
   * Renames the three files from names ending in {@code oldSuffix} to names ending in {@code
   * newSuffix}; see {@link #renameAll}.
   */
  public synchronized void changeSuffixes(String oldSuffix, String newSuffix) throws IOException {
    renameAll(
        renamed(logPath, oldSuffix, newSuffix),
        renamed(offsetIndexPath, oldSuffix, newSuffix),
        renamed(timeIndexPath, oldSuffix, newSuffix));
  }

  private static Path renamed(Path file, String oldSuffix, String newSuffix) {
    String name = file.getFileName().toString();
    if (!name.endsWith(oldSuffix)) {
      throw new IllegalStateException(file + " does not end in '" + oldSuffix + "'");
    }
    return file.resolveSibling(name.substring(0, name.length() - oldSuffix.length()) + newSuffix);
  }

  private static void moveIfExists(Path source, Path target) throws IOException {
    if (Files.exists(source)) {
      move(source, target);
    }
  }

  private static void move(Path source, Path target) throws IOException {
    try {
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(source, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Closes the files for good; a pinned reader keeps them until it unpins. */
  public void close() throws IOException {
    retire();
  }

  /**
   * Closes for good and unlinks the three files. A reader still holding a pin keeps reading the
   * unlinked inode until it unpins; the descriptor closes then.
   */
  public synchronized void deleteIfExists() throws IOException {
    deleted = true;
    retire();
    Files.deleteIfExists(offsetIndexPath);
    Files.deleteIfExists(timeIndexPath);
    Files.deleteIfExists(txnIndexPath);
    Files.deleteIfExists(logPath);
  }

  @Override
  public String toString() {
    return "SegmentFile(" + logPath + ")";
  }
}
