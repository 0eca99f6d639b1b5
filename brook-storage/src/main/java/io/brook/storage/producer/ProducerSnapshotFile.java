package io.brook.storage.producer;

import io.brook.storage.checkpoint.AtomicFiles;
import io.brook.storage.checkpoint.CorruptCheckpointException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The producer-state snapshot file {@code <20-digit offset>.snapshot}: the state of every producer
 * after applying all batches below {@code offset}.
 *
 * <p>Layout, big-endian:
 *
 * <pre>
 * short version              = 1
 * int   crc                  CRC32C of every byte after this field
 * int   producerCount
 * producerCount times:
 *   long  producerId
 *   short producerEpoch
 *   long  lastTimestamp
 *   int   coordinatorEpoch       -1 if no transaction marker was seen
 *   long  currentTxnFirstOffset  -1 if no transaction is open
 *   byte  batchCount             0..5, oldest batch first
 *   batchCount times:
 *     int  firstSeq
 *     int  lastSeq
 *     long firstOffset
 *     long lastOffset
 *     long maxTimestamp
 * </pre>
 *
 * <p>Written atomically (tmp, fsync, rename, directory fsync), so a crash leaves either no file or
 * a complete one. On read, the version and CRC are checked, every count is checked against the
 * bytes left before anything is allocated, values are checked for sanity (non-negative ids and
 * offsets, ordered batches, no producer listed twice) and the content must end exactly at the end
 * of the file. Any failure is a {@link CorruptCheckpointException}; the caller drops the file and
 * falls back to an older snapshot plus replay of the log.
 */
final class ProducerSnapshotFile {
  static final short VERSION = 1;
  static final String SUFFIX = ".snapshot";

  /** version (2) + crc (4): the CRC covers everything from here to the end of the file. */
  static final int CRC_COVERAGE_START = Short.BYTES + Integer.BYTES;

  /** version (2) + crc (4) + producerCount (4) = 10. */
  static final int HEADER_BYTES = CRC_COVERAGE_START + Integer.BYTES;

  /**
   * producerId (8) + producerEpoch (2) + lastTimestamp (8) + coordinatorEpoch (4) +
   * currentTxnFirstOffset (8) + batchCount (1) = 31.
   */
  static final int PRODUCER_FIXED_BYTES =
      Long.BYTES + Short.BYTES + Long.BYTES + Integer.BYTES + Long.BYTES + Byte.BYTES;

  /** firstSeq (4) + lastSeq (4) + firstOffset (8) + lastOffset (8) + maxTimestamp (8) = 32. */
  static final int BATCH_BYTES =
      Integer.BYTES + Integer.BYTES + Long.BYTES + Long.BYTES + Long.BYTES;

  private static final Pattern NAME = Pattern.compile("(\\d{20})" + Pattern.quote(SUFFIX));

  private ProducerSnapshotFile() {}

  static Path pathFor(Path partitionDir, long offset) {
    return partitionDir.resolve(String.format("%020d%s", offset, SUFFIX));
  }

  /** The offset in a snapshot file name, or empty if {@code fileName} is not one. */
  static OptionalLong offsetOf(String fileName) {
    Matcher matcher = NAME.matcher(fileName);
    if (!matcher.matches()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(matcher.group(1)));
    } catch (NumberFormatException e) {
      return OptionalLong.empty(); // 20 digits above Long.MAX_VALUE: not ours
    }
  }

  static void write(Path file, Collection<ProducerStateEntry> entries) throws IOException {
    AtomicFiles.write(file, serialize(entries));
  }

  static List<ProducerStateEntry> read(Path file) throws IOException {
    long size = Files.size(file);
    if (size > Integer.MAX_VALUE - 8) {
      throw new CorruptCheckpointException(
          "Corrupt producer snapshot " + file + ": implausible size " + size);
    }
    return deserialize(Files.readAllBytes(file), file);
  }

  static byte[] serialize(Collection<ProducerStateEntry> entries) {
    long size = HEADER_BYTES;
    for (ProducerStateEntry entry : entries) {
      size += PRODUCER_FIXED_BYTES + (long) entry.batches().size() * BATCH_BYTES;
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("producer snapshot too large: " + size + " bytes");
    }
    ByteBuffer buffer = ByteBuffer.allocate((int) size);
    buffer.putShort(VERSION);
    buffer.putInt(0); // CRC, filled in below
    buffer.putInt(entries.size());
    for (ProducerStateEntry entry : entries) {
      buffer.putLong(entry.producerId());
      buffer.putShort(entry.producerEpoch());
      buffer.putLong(entry.lastTimestamp());
      buffer.putInt(entry.coordinatorEpoch());
      buffer.putLong(entry.currentTxnFirstOffsetOrNone());
      buffer.put((byte) entry.batches().size());
      for (BatchMetadata batch : entry.batches()) {
        buffer.putInt(batch.firstSeq());
        buffer.putInt(batch.lastSeq());
        buffer.putLong(batch.firstOffset());
        buffer.putLong(batch.lastOffset());
        buffer.putLong(batch.maxTimestamp());
      }
    }
    byte[] bytes = buffer.array();
    ByteBuffer.wrap(bytes).putInt(Short.BYTES, crcOf(bytes));
    return bytes;
  }

  static List<ProducerStateEntry> deserialize(byte[] bytes, Path file)
      throws CorruptCheckpointException {
    Reader reader = new Reader(bytes, file);
    if (bytes.length < HEADER_BYTES) {
      throw reader.corrupt(
          "file is " + bytes.length + " bytes, shorter than the " + HEADER_BYTES + "-byte header");
    }
    ByteBuffer buffer = reader.buffer;
    short version = buffer.getShort();
    if (version != VERSION) {
      throw reader.corrupt("expected version " + VERSION + " but found " + version);
    }
    int storedCrc = buffer.getInt();
    int computedCrc = crcOf(bytes);
    if (storedCrc != computedCrc) {
      throw reader.corrupt(
          String.format("CRC mismatch: stored %08x, computed %08x", storedCrc, computedCrc));
    }
    int producerCount = buffer.getInt();
    reader.requireCount(producerCount, PRODUCER_FIXED_BYTES, "producerCount");
    List<ProducerStateEntry> entries = new ArrayList<>(producerCount);
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < producerCount; i++) {
      reader.requireCount(1, PRODUCER_FIXED_BYTES, "producer " + i);
      long producerId = buffer.getLong();
      short epoch = buffer.getShort();
      long lastTimestamp = buffer.getLong();
      int coordinatorEpoch = buffer.getInt();
      long txnFirstOffset = buffer.getLong();
      int batchCount = buffer.get();
      if (producerId < 0 || !seen.add(producerId)) {
        throw reader.corrupt("invalid or repeated producerId " + producerId);
      }
      if (epoch < 0 || coordinatorEpoch < -1 || txnFirstOffset < ProducerStateEntry.NO_TXN) {
        throw reader.corrupt(
            "invalid values for producerId "
                + producerId
                + ": epoch="
                + epoch
                + " coordinatorEpoch="
                + coordinatorEpoch
                + " currentTxnFirstOffset="
                + txnFirstOffset);
      }
      if (batchCount < 0 || batchCount > ProducerStateManager.MAX_BATCHES_PER_PRODUCER) {
        throw reader.corrupt("batchCount " + batchCount + " for producerId " + producerId);
      }
      reader.requireCount(batchCount, BATCH_BYTES, "batches of producerId " + producerId);
      List<BatchMetadata> batches = new ArrayList<>(batchCount);
      long previousLastOffset = -1;
      for (int b = 0; b < batchCount; b++) {
        BatchMetadata batch =
            new BatchMetadata(
                buffer.getInt(),
                buffer.getInt(),
                buffer.getLong(),
                buffer.getLong(),
                buffer.getLong());
        if (batch.firstSeq() < 0
            || batch.lastSeq() < 0
            || batch.firstOffset() <= previousLastOffset
            || batch.lastOffset() < batch.firstOffset()) {
          throw reader.corrupt("invalid batch for producerId " + producerId + ": " + batch);
        }
        previousLastOffset = batch.lastOffset();
        batches.add(batch);
      }
      entries.add(
          new ProducerStateEntry(
              producerId, epoch, batches, lastTimestamp, txnFirstOffset, coordinatorEpoch));
    }
    if (buffer.hasRemaining()) {
      throw reader.corrupt(buffer.remaining() + " unexpected trailing bytes");
    }
    return entries;
  }

  private static int crcOf(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, CRC_COVERAGE_START, bytes.length - CRC_COVERAGE_START);
    return (int) crc.getValue();
  }

  /** A cursor that checks lengths before reading and names the file in every error. */
  private static final class Reader {
    final ByteBuffer buffer;
    final Path file;

    Reader(byte[] bytes, Path file) {
      this.buffer = ByteBuffer.wrap(bytes);
      this.file = file;
    }

    void requireCount(int count, int bytesPerItem, String what) throws CorruptCheckpointException {
      if (count < 0 || (long) count * bytesPerItem > buffer.remaining()) {
        throw corrupt(
            what
                + ": "
                + count
                + " x "
                + bytesPerItem
                + " bytes does not fit in the "
                + buffer.remaining()
                + " bytes left at position "
                + buffer.position());
      }
    }

    CorruptCheckpointException corrupt(String what) {
      return new CorruptCheckpointException("Corrupt producer snapshot " + file + ": " + what);
    }
  }
}
