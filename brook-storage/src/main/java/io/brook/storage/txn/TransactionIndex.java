package io.brook.storage.txn;

import io.brook.storage.index.CorruptIndexException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A segment's aborted transactions, the {@code .txnindex} file in Kafka's format: 34-byte entries,
 * big-endian, in the order of their markers.
 *
 * <pre>
 * short version = 0
 * long  producerId
 * long  firstOffset
 * long  lastOffset        offset of the ABORT marker
 * long  lastStableOffset  LSO right after the marker
 * </pre>
 *
 * <p>Most segments never hold an aborted transaction, so the file is created only with its first
 * entry. No file stays open: an append opens, writes and closes (aborts are rare; a descriptor per
 * segment would escape the node's bound on open files), and the entries are read once, on first
 * use, and then kept in memory. The file's path is asked of the segment every time, so renames
 * (deletion, compaction swaps) are followed.
 *
 * <p>Thread-safety: all methods are synchronized; the writer is the log's appending thread and the
 * readers are read_committed fetches.
 */
public final class TransactionIndex {
  private static final Logger log = LoggerFactory.getLogger(TransactionIndex.class);
  public static final int ENTRY_BYTES = Short.BYTES + 4 * Long.BYTES;
  static final short VERSION = 0;

  private final Supplier<Path> path;

  /** The entries, ordered by lastOffset; null until first loaded. */
  private List<AbortedTxn> entries;

  public TransactionIndex(Supplier<Path> path) {
    this.path = path;
  }

  /**
   * Appends an entry unless its marker is not past the last entry's: recovery and truncation replay
   * markers whose entries may already be here, and the index never goes back in offset order.
   *
   * @return whether the entry was written
   */
  public synchronized boolean append(AbortedTxn txn) throws IOException {
    List<AbortedTxn> current = loaded();
    if (!current.isEmpty() && txn.lastOffset() <= current.get(current.size() - 1).lastOffset()) {
      return false;
    }
    ByteBuffer buffer = ByteBuffer.allocate(ENTRY_BYTES);
    buffer.putShort(VERSION);
    buffer.putLong(txn.producerId());
    buffer.putLong(txn.firstOffset());
    buffer.putLong(txn.lastOffset());
    buffer.putLong(txn.lastStableOffset());
    buffer.flip();
    try (FileChannel channel =
        FileChannel.open(
            path.get(),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)) {
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    }
    current.add(txn);
    return true;
  }

  /** A copy of the entries, in marker order. */
  public synchronized List<AbortedTxn> entries() throws IOException {
    return List.copyOf(loaded());
  }

  /** Whether this segment has any aborted transaction (reads the file on first use). */
  public synchronized boolean isEmpty() throws IOException {
    return loaded().isEmpty();
  }

  /**
   * Adds to {@code out} the entries whose transaction overlaps {@code [fetchOffset, upperBound)}.
   *
   * @return true when the search is complete: an entry's last stable offset reached {@code
   *     upperBound}, so every later abort (in this or any later segment) started at or after it
   */
  public synchronized boolean collect(long fetchOffset, long upperBound, List<AbortedTxn> out)
      throws IOException {
    return collect(loaded(), fetchOffset, upperBound, out);
  }

  /** Drops the entries whose marker is at or after {@code offset} (the log was cut there). */
  public synchronized void truncateTo(long offset) throws IOException {
    List<AbortedTxn> current = loaded();
    int keep = 0;
    while (keep < current.size() && current.get(keep).lastOffset() < offset) {
      keep++;
    }
    if (keep == current.size()) {
      return;
    }
    current.subList(keep, current.size()).clear();
    if (keep == 0) {
      Files.deleteIfExists(path.get());
      return;
    }
    try (FileChannel channel = FileChannel.open(path.get(), StandardOpenOption.WRITE)) {
      channel.truncate((long) keep * ENTRY_BYTES);
    }
  }

  /** Forces the file to disk, if there is one. */
  public synchronized void flush() throws IOException {
    if (entries != null && entries.isEmpty()) {
      return;
    }
    try (FileChannel channel = FileChannel.open(path.get(), StandardOpenOption.WRITE)) {
      channel.force(true);
    } catch (NoSuchFileException e) {
      // No aborted transaction in this segment.
    }
  }

  private List<AbortedTxn> loaded() throws IOException {
    if (entries == null) {
      entries = read(path.get());
    }
    return entries;
  }

  /**
   * Reads every entry. A partial last entry is what a crash in the middle of an append leaves (the
   * marker's batch may not have survived either, and if it did, replay writes the entry again): it
   * is cut off. An entry of another version means the file is not what we wrote: corrupt.
   */
  static List<AbortedTxn> read(Path file) throws IOException {
    byte[] bytes;
    try {
      // The file's real length bounds the allocation; no length field is trusted.
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return new ArrayList<>();
    }
    int whole = bytes.length - bytes.length % ENTRY_BYTES;
    if (whole != bytes.length) {
      log.warn(
          "Cutting a torn entry off a transaction index file={} bytes={} kept={}",
          file,
          bytes.length,
          whole);
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        channel.truncate(whole);
      }
    }
    return parse(ByteBuffer.wrap(bytes, 0, whole), file);
  }

  /**
   * The entries of a transaction index's bytes (a copy in remote storage, for one), whole entries
   * only: a torn tail is ignored.
   *
   * @throws CorruptIndexException on an entry of another version
   */
  public static List<AbortedTxn> parse(ByteBuffer bytes, Object source) {
    ByteBuffer buffer = bytes.duplicate();
    buffer.limit(buffer.position() + buffer.remaining() / ENTRY_BYTES * ENTRY_BYTES);
    List<AbortedTxn> out = new ArrayList<>(buffer.remaining() / ENTRY_BYTES);
    while (buffer.hasRemaining()) {
      short version = buffer.getShort();
      if (version != VERSION) {
        throw new CorruptIndexException(
            "transaction index " + source + " has an entry of version " + version);
      }
      out.add(
          new AbortedTxn(buffer.getLong(), buffer.getLong(), buffer.getLong(), buffer.getLong()));
    }
    return out;
  }

  /**
   * Adds to {@code out} the entries of {@code entries} (one index, in order) whose transaction
   * overlaps {@code [fetchOffset, upperBound)}; true when the search is complete (see {@link
   * #collect}).
   */
  public static boolean collect(
      List<AbortedTxn> entries, long fetchOffset, long upperBound, List<AbortedTxn> out) {
    for (AbortedTxn txn : entries) {
      if (txn.lastOffset() >= fetchOffset && txn.firstOffset() < upperBound) {
        out.add(txn);
      }
      if (txn.lastStableOffset() >= upperBound) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "TransactionIndex(" + path.get() + ")";
  }
}
