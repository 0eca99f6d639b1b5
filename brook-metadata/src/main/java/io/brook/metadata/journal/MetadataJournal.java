package io.brook.metadata.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RecordJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metadata records of a single node, in an append-only file {@code <dir>/metadata.log}.
 *
 * <h2>Layout</h2>
 *
 * The file is a sequence of entries, each one batch of records, with no file header:
 *
 * <pre>
 * +----------------+----------------+-------------------------------+
 * | length: int32  | crc: int32     | JSON: length bytes, UTF-8     |
 * +----------------+----------------+-------------------------------+
 * </pre>
 *
 * Integers are big-endian; {@code crc} is the CRC-32C of the JSON bytes; {@code length} is 1 to
 * {@link #MAX_ENTRY_BYTES}. The JSON is an object {@code {"lastOffset": n, "snapshot": false,
 * "records": [...]}} with the records in the form of {@link RecordJson}; the records have the
 * offsets {@code lastOffset - records.length + 1} to {@code lastOffset}. After {@link #compact} the
 * file starts with the image as snapshot entries ({@code "snapshot": true}, a {@code "chunks"}
 * count, all with the image's offset as {@code lastOffset}), replayed onto an empty image together.
 *
 * <h2>Durability and recovery</h2>
 *
 * Each {@link #append} writes one entry and forces it to disk before returning (metadata changes
 * are rare; durability first). {@link #load} replays every entry. A crash can leave only the last
 * entry incomplete: an entry that runs past the end of the file, a last entry with a bad checksum,
 * or a zero-filled tail is cut off and logged. Anything else (a bad checksum with valid data after
 * it, a length above the bound, an entry that does not parse or apply) is a {@link
 * CorruptJournalException} naming the byte position. The length is checked against the bound before
 * any buffer is allocated. {@link #compact} writes the image to a new file, forces it, and renames
 * it over the journal, so a crash leaves either the old or the new file whole.
 *
 * <h2>Threads</h2>
 *
 * Not thread-safe: one writer (the {@link io.brook.metadata.quorum.LocalMetadataQuorum}, under its
 * lock). A {@code metadata.lock} file, locked while open, keeps a second process out.
 */
public final class MetadataJournal implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetadataJournal.class);

  /** The journal's file name in the metadata directory. */
  public static final String FILE_NAME = "metadata.log";

  /** The lock file's name in the metadata directory. */
  public static final String LOCK_FILE_NAME = "metadata.lock";

  /**
   * The largest JSON body of one entry. A batch of the controller's largest operation (10,000
   * partition records of about 150 bytes) is 1.5 MB, a tenth of this; a declared length above it is
   * corruption, refused before allocating.
   */
  public static final int MAX_ENTRY_BYTES = 16 * 1024 * 1024;

  /** Target size of one snapshot entry written by {@link #compact}: half the bound. */
  static final int SNAPSHOT_CHUNK_BYTES = MAX_ENTRY_BYTES / 2;

  /** length (4) + crc (4). */
  static final int HEADER_BYTES = 8;

  private static final String COMPACTING_SUFFIX = ".compacting";

  /**
   * The result of replaying a journal.
   *
   * @param image the image after every entry
   * @param nextOffset the offset the next record will get ({@code image.offset() + 1})
   */
  public record Loaded(MetadataImage image, long nextOffset) {}

  private final Path dir;
  private final Path file;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private FileChannel channel;
  private final Loaded loaded;
  private long nextOffset;
  private long size;
  private boolean failed;

  private MetadataJournal(
      Path dir, FileChannel lockChannel, FileLock lock, FileChannel channel, Scan scan) {
    this.dir = dir;
    this.file = dir.resolve(FILE_NAME);
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.channel = channel;
    this.loaded = new Loaded(scan.image, scan.image.offset() + 1);
    this.nextOffset = loaded.nextOffset();
    this.size = scan.validBytes;
  }

  /**
   * Replays the journal in {@code dir}, cutting off a torn last entry. A missing journal is an
   * empty image at offset -1.
   *
   * @throws CorruptJournalException if the journal is corrupt other than at its tail
   */
  public static Loaded load(Path dir) throws IOException {
    Path file = dir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return new Loaded(MetadataImage.EMPTY, 0);
    }
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      Scan scan = scan(file, channel);
      return new Loaded(scan.image, scan.image.offset() + 1);
    }
  }

  /**
   * Opens the journal in {@code dir} for appending, creating the directory and file if needed,
   * after replaying it as {@link #load} does; {@link #loaded()} is the result.
   *
   * @throws IOException if another process holds the journal, or it cannot be read
   * @throws CorruptJournalException if the journal is corrupt other than at its tail
   */
  public static MetadataJournal open(Path dir) throws IOException {
    Files.createDirectories(dir);
    FileChannel lockChannel =
        FileChannel.open(
            dir.resolve(LOCK_FILE_NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileChannel channel = null;
    try {
      FileLock lock;
      try {
        lock = lockChannel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        throw new IOException("metadata journal in " + dir + " is in use by another process");
      }
      Path file = dir.resolve(FILE_NAME);
      boolean created = !Files.exists(file);
      channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      if (created) {
        fsyncDirectory(dir);
      }
      Scan scan = scan(file, channel);
      return new MetadataJournal(dir, lockChannel, lock, channel, scan);
    } catch (IOException | RuntimeException e) {
      if (channel != null) {
        channel.close();
      }
      lockChannel.close();
      throw e;
    }
  }

  /** The state replayed when the journal was opened. */
  public Loaded loaded() {
    return loaded;
  }

  /** The offset the next appended record gets. */
  public long nextOffset() {
    return nextOffset;
  }

  /** The offset of the last record, -1 if none. */
  public long lastOffset() {
    return nextOffset - 1;
  }

  /** The journal file's size in bytes. */
  public long sizeInBytes() {
    return size;
  }

  /**
   * Appends one batch as one entry and forces it to disk.
   *
   * @param records the batch; an empty batch writes nothing
   * @return the offset of the batch's last record (the new {@link #lastOffset()})
   * @throws IllegalArgumentException if the batch's JSON exceeds {@link #MAX_ENTRY_BYTES}
   * @throws IOException if the write fails; the entry is then cut off again if possible, else the
   *     journal refuses further appends
   */
  public long append(List<MetadataRecord> records) throws IOException {
    checkUsable();
    if (records.isEmpty()) {
      return lastOffset();
    }
    long lastOffset = nextOffset + records.size() - 1;
    ByteBuffer entry = encodeEntry(lastOffset, false, 0, records);
    long start = size;
    try {
      writeFully(channel, entry, start);
      channel.force(false);
    } catch (IOException e) {
      try {
        channel.truncate(start);
        channel.force(false);
      } catch (IOException | RuntimeException suppressed) {
        failed = true;
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    size = start + entry.limit();
    nextOffset = lastOffset + 1;
    return lastOffset;
  }

  /**
   * Replaces the journal with the image as snapshot entries. Crash-safe: the image is written to a
   * new file that replaces the journal by an atomic rename once it is on disk.
   *
   * @param image the image at this journal's {@link #lastOffset()}
   * @throws IllegalArgumentException if the image is at another offset
   */
  public void compact(MetadataImage image) throws IOException {
    compact(image, SNAPSHOT_CHUNK_BYTES);
  }

  /** {@link #compact(MetadataImage)} with snapshot entries of about {@code chunkBytes}. */
  void compact(MetadataImage image, int chunkBytes) throws IOException {
    checkUsable();
    if (image.offset() != lastOffset()) {
      throw new IllegalArgumentException(
          "image at offset " + image.offset() + " but the journal ends at " + lastOffset());
    }
    List<List<MetadataRecord>> chunks = chunk(image.toRecords(), chunkBytes);
    Path tmp = dir.resolve(FILE_NAME + COMPACTING_SUFFIX);
    long newSize = 0;
    try (FileChannel out =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      for (List<MetadataRecord> chunk : chunks) {
        ByteBuffer entry = encodeEntry(image.offset(), true, chunks.size(), chunk);
        writeFully(out, entry, newSize);
        newSize += entry.limit();
      }
      out.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    fsyncDirectory(dir);
    long oldSize = size;
    channel.close();
    try {
      channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (IOException e) {
      failed = true;
      throw e;
    }
    size = newSize;
    log.info(
        "Compacted metadata journal file={} offset={} records={} entries={} bytesBefore={}"
            + " bytesAfter={}",
        file,
        image.offset(),
        chunks.stream().mapToInt(List::size).sum(),
        chunks.size(),
        oldSize,
        newSize);
  }

  @Override
  public void close() throws IOException {
    try {
      channel.close();
    } finally {
      try {
        if (lock.isValid()) {
          lock.release();
        }
      } finally {
        lockChannel.close();
      }
    }
  }

  private void checkUsable() {
    if (!channel.isOpen()) {
      throw new IllegalStateException("metadata journal " + file + " is closed");
    }
    if (failed) {
      throw new IllegalStateException(
          "metadata journal " + file + " failed a write and could not be repaired; reopen it");
    }
  }

  // ---- encoding

  static ByteBuffer encodeEntry(
      long lastOffset, boolean snapshot, int chunks, List<MetadataRecord> records) {
    ObjectNode node = RecordJson.MAPPER.createObjectNode();
    node.put("lastOffset", lastOffset);
    node.put("snapshot", snapshot);
    if (snapshot) {
      node.put("chunks", chunks);
    }
    node.set("records", RecordJson.toJson(records));
    byte[] json;
    try {
      json = RecordJson.MAPPER.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialize metadata records", e);
    }
    if (json.length > MAX_ENTRY_BYTES) {
      throw new IllegalArgumentException(
          "a batch of "
              + records.size()
              + " metadata records takes "
              + json.length
              + " bytes, above the limit of "
              + MAX_ENTRY_BYTES);
    }
    CRC32C crc = new CRC32C();
    crc.update(json);
    ByteBuffer entry = ByteBuffer.allocate(HEADER_BYTES + json.length);
    entry.putInt(json.length).putInt((int) crc.getValue()).put(json).flip();
    return entry;
  }

  /** Splits records into lists whose JSON stays near {@code chunkBytes}. */
  private static List<List<MetadataRecord>> chunk(List<MetadataRecord> records, int chunkBytes)
      throws IOException {
    List<List<MetadataRecord>> chunks = new ArrayList<>();
    List<MetadataRecord> current = new ArrayList<>();
    long bytes = 0;
    for (MetadataRecord record : records) {
      int recordBytes = RecordJson.MAPPER.writeValueAsBytes(RecordJson.toJson(record)).length + 1;
      if (!current.isEmpty() && bytes + recordBytes > chunkBytes) {
        chunks.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(record);
      bytes += recordBytes;
    }
    chunks.add(current); // an empty image still records its offset
    return chunks;
  }

  // ---- replay

  private record Scan(MetadataImage image, long validBytes) {}

  private static Scan scan(Path file, FileChannel channel) throws IOException {
    long fileSize = channel.size();
    long position = 0;
    int entries = 0;
    MetadataImage image = MetadataImage.EMPTY;
    Snapshot snapshot = new Snapshot();
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
    String torn = null;
    while (position < fileSize) {
      if (fileSize - position < HEADER_BYTES) {
        torn = "an incomplete entry header";
        break;
      }
      header.clear();
      readFully(channel, header, position);
      header.flip();
      int length = header.getInt();
      int expectedCrc = header.getInt();
      if (length == 0 && expectedCrc == 0 && isZeroTail(channel, position, fileSize)) {
        torn = "a zero-filled tail";
        break;
      }
      if (length <= 0 || length > MAX_ENTRY_BYTES) {
        throw corrupt(
            file,
            position,
            entries,
            image,
            "the entry length " + length + " is outside 1.." + MAX_ENTRY_BYTES,
            null);
      }
      long end = position + HEADER_BYTES + length;
      if (end > fileSize) {
        torn = "an entry of " + length + " bytes that runs past the end of the file";
        break;
      }
      ByteBuffer body = ByteBuffer.allocate(length);
      readFully(channel, body, position + HEADER_BYTES);
      CRC32C crc = new CRC32C();
      crc.update(body.array(), 0, length);
      if ((int) crc.getValue() != expectedCrc) {
        if (end == fileSize || isZeroTail(channel, end, fileSize)) {
          torn = "a last entry with a bad checksum";
          break;
        }
        throw corrupt(file, position, entries, image, "bad checksum", null);
      }
      try {
        JsonNode entry = RecordJson.MAPPER.readTree(body.array());
        JsonNode lastOffsetNode = entry.path("lastOffset");
        if (!lastOffsetNode.isIntegralNumber() || !lastOffsetNode.canConvertToLong()) {
          throw new IllegalArgumentException("the entry has no lastOffset");
        }
        long lastOffset = lastOffsetNode.longValue();
        List<MetadataRecord> records = RecordJson.listFromJson(entry.get("records"));
        if (entry.path("snapshot").asBoolean(false)) {
          if (entries != snapshot.entries) {
            throw new IllegalArgumentException("a snapshot entry after other entries");
          }
          snapshot.add(lastOffset, entry.path("chunks").asInt(0), records);
        } else {
          if (snapshot.pending()) {
            image = snapshot.finish();
          }
          image = image.apply(records, lastOffset);
        }
      } catch (IOException | RuntimeException e) {
        throw corrupt(file, position, entries, image, "cannot replay: " + e.getMessage(), e);
      }
      entries++;
      position = end;
    }
    if (snapshot.pending()) {
      try {
        image = snapshot.finish();
      } catch (RuntimeException e) {
        throw corrupt(file, 0, 0, image, "bad snapshot: " + e.getMessage(), e);
      }
    }
    if (torn != null) {
      log.warn(
          "Truncating torn metadata journal tail file={} position={} droppedBytes={} reason=\"{}\""
              + " lastOffset={}",
          file,
          position,
          fileSize - position,
          torn,
          image.offset());
      channel.truncate(position);
      channel.force(true);
    }
    log.info(
        "Loaded metadata journal file={} entries={} bytes={} offset={} topics={} brokers={}",
        file,
        entries,
        position,
        image.offset(),
        image.topicNames().size(),
        image.brokers().size());
    return new Scan(image, position);
  }

  /** The snapshot entries at the start of a compacted journal, replayed together. */
  private static final class Snapshot {
    private final List<MetadataRecord> records = new ArrayList<>();
    private long offset;
    private int chunks;
    private int entries;
    private boolean finished;

    void add(long lastOffset, int declaredChunks, List<MetadataRecord> chunk) {
      if (entries > 0 && (lastOffset != offset || declaredChunks != chunks)) {
        throw new IllegalArgumentException("snapshot entries disagree on offset or size");
      }
      offset = lastOffset;
      chunks = declaredChunks;
      entries++;
      records.addAll(chunk);
    }

    boolean pending() {
      return entries > 0 && !finished;
    }

    MetadataImage finish() {
      finished = true;
      if (chunks != entries) {
        throw new IllegalArgumentException(
            "the snapshot has " + entries + " of its " + chunks + " entries");
      }
      return MetadataImage.EMPTY.apply(records, offset);
    }
  }

  private static CorruptJournalException corrupt(
      Path file, long position, int entry, MetadataImage image, String why, Throwable cause) {
    return new CorruptJournalException(
        "metadata journal "
            + file
            + " is corrupt at byte position "
            + position
            + " (entry "
            + entry
            + ", after metadata offset "
            + image.offset()
            + "): "
            + why,
        position,
        cause);
  }

  /** Whether every byte from {@code from} to the end of the file is zero. */
  private static boolean isZeroTail(FileChannel channel, long from, long fileSize)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    long position = from;
    while (position < fileSize) {
      buffer.clear();
      if (fileSize - position < buffer.capacity()) {
        buffer.limit((int) (fileSize - position));
      }
      readFully(channel, buffer, position);
      buffer.flip();
      while (buffer.hasRemaining()) {
        if (buffer.get() != 0) {
          return false;
        }
      }
      position += buffer.limit();
    }
    return true;
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, at);
      if (n < 0) {
        throw new IOException("unexpected end of file at " + at);
      }
      at += n;
    }
  }

  private static void writeFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      at += channel.write(buffer, at);
    }
  }

  private static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // Some file systems cannot open or force a directory; the file's own fsync still holds.
      log.debug("Cannot fsync directory dir={}", dir, e);
    }
  }

  @Override
  public String toString() {
    return "MetadataJournal(" + Objects.toString(file) + ", nextOffset=" + nextOffset + ")";
  }
}
