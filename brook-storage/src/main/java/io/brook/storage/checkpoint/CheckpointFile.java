package io.brook.storage.checkpoint;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.BiPredicate;

/**
 * A small human-readable text file holding a list of entries, replaced atomically on every write.
 *
 * <p>Layout (UTF-8, one item per line, every line ends with {@code \n}; Kafka's checkpoint format):
 *
 * <pre>
 * version        decimal int, must equal the version this file was opened with
 * count          decimal int, the number of entry lines that follow
 * entry 1        EntryFormat#toLine
 * ...
 * entry count
 * </pre>
 *
 * <p>Crash behaviour: {@link #write} goes through {@link AtomicFiles}, so after a crash the file
 * holds either the previous or the new complete list. There is no checksum; the version, the count
 * and the entry syntax are checked on {@link #read}, and any mismatch is a {@link
 * CorruptCheckpointException} rather than a silently shortened list. {@link #writeUnsynced} leaves
 * the new content in the page cache until {@link #sync}; after a power loss in between the file may
 * be old, new or empty, so only content that can be rebuilt may be written that way. {@link
 * #writeLater} does not even touch the file: the content is written, synced, at the next {@link
 * #sync} (or replaced by a newer write), for changes that loading would redo anyway if they were
 * lost. {@link #syncUnless} saves the sync when the owner knows that the difference between what is
 * on disk and the latest content would not change what the next reader ends up with.
 *
 * <p>Thread-safety: reads and writes of one instance are serialized. Two instances on the same path
 * are not coordinated.
 *
 * @param <T> the entry type
 */
public final class CheckpointFile<T> {

  /** Converts one entry to and from its line. */
  public interface EntryFormat<T> {
    /**
     * The entry as one line, without line terminator; must not contain {@code \n} or {@code \r}.
     */
    String toLine(T entry);

    /**
     * Parses a line written by {@link #toLine}.
     *
     * @throws IllegalArgumentException if the line is malformed
     */
    T fromLine(String line);
  }

  private final Path file;
  private final int version;
  private final EntryFormat<T> format;
  private final Object lock = new Object();

  /** Guarded by {@link #lock}: true while the file holds content not yet forced to disk. */
  private boolean unsynced;

  /** Guarded by {@link #lock}: content {@link #writeLater} left for the next sync, or null. */
  private byte[] pending;

  /** Guarded by {@link #lock}: fsync sequences run so far (synced writes and syncs), for tests. */
  private long syncs;

  /**
   * Guarded by {@link #lock}: the entries known to be on disk (read, or written and synced), or
   * null when not known (nothing read or written yet, or the file could not be read).
   */
  private List<T> durable;

  /** Guarded by {@link #lock}: the entries of the latest read or write, synced or not. */
  private List<T> latest;

  public CheckpointFile(Path file, int version, EntryFormat<T> format) {
    this.file = Objects.requireNonNull(file, "file");
    this.version = version;
    this.format = Objects.requireNonNull(format, "format");
  }

  public Path file() {
    return file;
  }

  /**
   * Replaces the file's content with {@code entries}, in iteration order.
   *
   * @throws IllegalArgumentException if an entry's line contains a line terminator
   */
  public void write(Collection<T> entries) throws IOException {
    byte[] bytes = encode(entries);
    List<T> copy = List.copyOf(entries);
    synchronized (lock) {
      AtomicFiles.write(file, bytes);
      unsynced = false;
      pending = null;
      syncs++;
      durable = copy;
      latest = copy;
    }
  }

  /**
   * Replaces the file's content like {@link #write} but without fsync; {@link #sync} later makes it
   * durable.
   */
  public void writeUnsynced(Collection<T> entries) throws IOException {
    byte[] bytes = encode(entries);
    List<T> copy = List.copyOf(entries);
    synchronized (lock) {
      AtomicFiles.writeUnsynced(file, bytes);
      unsynced = true;
      pending = null;
      latest = copy;
    }
  }

  /**
   * Keeps {@code entries} to be written, synced, by the next {@link #sync}, leaving the file as it
   * is until then; a later write replaces them. Until then, and after a crash before it, the file
   * holds the previous content: only for changes that whoever reads the file next would make again
   * (a log's loader cutting epochs that start at or past the log end it finds).
   */
  public void writeLater(Collection<T> entries) {
    byte[] bytes = encode(entries);
    List<T> copy = List.copyOf(entries);
    synchronized (lock) {
      pending = bytes;
      latest = copy;
    }
  }

  /**
   * Forces the file and its directory to disk if an unsynced write happened since the last one, or
   * writes and forces what {@link #writeLater} left.
   */
  public void sync() throws IOException {
    synchronized (lock) {
      syncLocked();
    }
  }

  /**
   * As {@link #sync}, unless {@code sameForTheReader} says that the entries on disk and the latest
   * entries make no difference to whoever reads the file next (it derives the rest again), in which
   * case the latest content is left unsynced (or unwritten) and the sync is saved. Always syncs
   * when what is on disk is not known.
   */
  public void syncUnless(BiPredicate<List<T>, List<T>> sameForTheReader) throws IOException {
    synchronized (lock) {
      if (!unsynced && pending == null) {
        return;
      }
      if (durable != null && latest != null && sameForTheReader.test(durable, latest)) {
        return;
      }
      syncLocked();
    }
  }

  private void syncLocked() throws IOException {
    if (pending != null) {
      AtomicFiles.write(file, pending);
      pending = null;
      unsynced = false;
      syncs++;
      durable = latest;
      return;
    }
    if (!unsynced) {
      return;
    }
    AtomicFiles.sync(file);
    unsynced = false;
    syncs++;
    durable = latest;
  }

  /**
   * True if the file holds content written by {@link #writeUnsynced} and not yet synced, or {@link
   * #writeLater} left content for the next sync.
   */
  public boolean hasUnsyncedWrite() {
    synchronized (lock) {
      return unsynced || pending != null;
    }
  }

  /** How many fsync sequences this instance has run (synced writes plus syncs); for tests. */
  public long syncCount() {
    synchronized (lock) {
      return syncs;
    }
  }

  private byte[] encode(Collection<T> entries) {
    StringBuilder content = new StringBuilder();
    content.append(version).append('\n');
    content.append(entries.size()).append('\n');
    for (T entry : entries) {
      String line = format.toLine(entry);
      if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
        throw new IllegalArgumentException(
            "checkpoint entry contains a line terminator: file=" + file + " entry=" + entry);
      }
      content.append(line).append('\n');
    }
    return content.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The entries in file order; an empty list if the file does not exist.
   *
   * @throws CorruptCheckpointException if the version, the count or an entry line is wrong
   */
  public List<T> read() throws IOException {
    List<String> lines;
    synchronized (lock) {
      try {
        lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        readFromDisk(List.of());
        return List.of();
      } catch (CharacterCodingException e) {
        throw corrupt("not valid UTF-8", e);
      }
    }
    if (lines.size() < 2) {
      throw corrupt("expected a version line and a count line but the file has " + lines.size());
    }
    int foundVersion = parseHeader(lines.get(0), "version");
    if (foundVersion != version) {
      throw corrupt("expected version " + version + " but found " + foundVersion);
    }
    int count = parseHeader(lines.get(1), "entry count");
    int present = lines.size() - 2;
    // The count is checked against the lines actually present before anything is sized by it.
    if (count < 0 || count != present) {
      throw corrupt("header says " + count + " entries but the file has " + present);
    }
    List<T> entries = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String line = lines.get(i + 2);
      try {
        entries.add(Objects.requireNonNull(format.fromLine(line), "fromLine returned null"));
      } catch (IllegalArgumentException | NullPointerException e) {
        throw corrupt(
            "malformed entry on line " + (i + 3) + " '" + line + "': " + e.getMessage(), e);
      }
    }
    List<T> read = Collections.unmodifiableList(entries);
    synchronized (lock) {
      readFromDisk(read);
    }
    return read;
  }

  /** What a read found is what is on disk, unless this instance wrote since without a sync. */
  /**
   * Records that the file does not exist (its directory was just created), as a {@link #read} that
   * found none would, without looking: no entry is on disk.
   */
  public void knownAbsent() {
    synchronized (lock) {
      readFromDisk(List.of());
    }
  }

  private void readFromDisk(List<T> entries) {
    if (!unsynced && pending == null) {
      durable = entries;
      latest = entries;
    }
  }

  private int parseHeader(String line, String what) throws CorruptCheckpointException {
    try {
      return Integer.parseInt(line);
    } catch (NumberFormatException e) {
      throw corrupt("malformed " + what + " line '" + line + "'", e);
    }
  }

  private CorruptCheckpointException corrupt(String what) {
    return new CorruptCheckpointException("Corrupt checkpoint file " + file + ": " + what);
  }

  private CorruptCheckpointException corrupt(String what, Throwable cause) {
    return new CorruptCheckpointException("Corrupt checkpoint file " + file + ": " + what, cause);
  }

  @Override
  public String toString() {
    return "CheckpointFile(" + file + ", version " + version + ")";
  }
}
