package io.brook.storage.record;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * A forward-only cursor over the records of one magic-v2 batch that trusts none of its lengths.
 *
 * <p>Record layout (Kafka's): a varint body length, then attributes (1 byte), timestamp delta
 * (varlong), offset delta (varint), key length (varint, -1 for null) and key, value length and
 * value, a header count (varint) and that many headers (key length, key, value length, value).
 *
 * <p>What it checks while reading: that the batch holds exactly its header's record count (a
 * missing record or a byte after the last one is an error), that every length fits in its record,
 * that the fields of a record add up to exactly its body length, that no record is longer than
 * {@link RecordLimits#maxRecordBytes()} and that a compressed batch inflates to at most {@link
 * RecordLimits#maxBatchInflatedBytes()}. The batch's CRC, offsets and timestamps are the caller's
 * business. A violation throws {@link RecordValidationException} ({@link
 * StorageError#INVALID_RECORD}; {@link StorageError#CORRUPT_MESSAGE} when the compressed bytes do
 * not decompress), never anything else.
 *
 * <p>Memory: an uncompressed batch is read in place, with no allocation at all. A compressed one
 * goes through a decompression stream into a 16 KiB chunk; keys and values are skipped unless the
 * caller asks to {@link Capture capture} them, in which case they are copied into a scratch array
 * that grows with the bytes actually read and never past one record. So no length field and no
 * compression ratio decides how much is allocated.
 *
 * <p>Use: {@link #open}, then {@link #next()} until it returns false (having checked that nothing
 * follows the last record), reading each record's fields in between; the next {@code open} or
 * {@link #endBatch()} ends a batch, {@link #close()} also frees the native memory of a zstd
 * context. Not thread-safe; reuse one reader per thread, it keeps its buffers between batches.
 */
public final class BatchRecordReader implements AutoCloseable {

  /** What a compressed batch's records keep besides their fixed fields. */
  public enum Capture {
    /** Keys and values are skipped: {@link #key()} and {@link #value()} are unavailable. */
    NONE,
    /** Keys are kept, values skipped. */
    KEY,
    /** Keys and values are kept. */
    KEY_AND_VALUE
  }

  /**
   * Size of the chunk decompressed bytes land in: Kafka reads decompression streams in 16 KiB
   * chunks too (its {@code ChunkedBytesStream}); big enough to amortize a native call per read,
   * small enough to stay in the CPU's L1/L2 cache while the records are parsed.
   */
  private static final int CHUNK_BYTES = 16 * 1024;

  /** The shortest record body: attributes and five one-byte varints. */
  private static final int MIN_BODY_BYTES = 6;

  private static final int COMPRESSION_MASK = 0x07;
  private static final int TIMESTAMP_TYPE_MASK = 0x08;

  private static final int BASE_TIMESTAMP_OFFSET = 27;
  private static final int MAX_TIMESTAMP_OFFSET = 35;
  private static final int MAGIC_OFFSET = 16;
  private static final int ATTRIBUTES_OFFSET = 21;

  /** Allocated with the first compressed batch: a thread that sees none never pays for it. */
  private ByteBuffer chunk;

  private final Decompression decompression = new Decompression();
  private byte[] scratch = new byte[0];
  private ByteBuffer copy = ByteBuffer.allocate(0);

  private RecordLimits limits;
  private Capture capture;

  // The batch.
  private ByteBuffer source;
  private int pos;
  private int limit;
  private InputStream in;
  private long chunkStart;
  private long inflated;
  private long baseOffset;
  private long baseTimestamp;
  private long logAppendTime;
  private int count;
  private int read;
  private boolean done;

  // The current record.
  private int sizeInBytes;
  private byte attributes;
  private long timestampDelta;
  private int offsetDelta;
  private int keySize;
  private int valueSize;
  private int headerCount;
  private int keyAt;
  private int valueAt;
  private boolean inScratch;

  /**
   * Starts reading the batch whose first byte is {@code buffer[position]}; the buffer must hold the
   * whole batch (its length field is checked against it). Records are read in place.
   */
  public void open(ByteBuffer buffer, int position, RecordLimits limits, Capture capture) {
    endBatch();
    this.limits = limits;
    this.capture = capture;
    int available = buffer.limit() - position;
    if (available < DefaultRecordBatch.RECORD_BATCH_OVERHEAD) {
      throw batchError(StorageError.CORRUPT_MESSAGE, "shorter than a batch header");
    }
    baseOffset = buffer.getLong(position);
    read = 0;
    int size = buffer.getInt(position + 8) + 12;
    if (size < DefaultRecordBatch.RECORD_BATCH_OVERHEAD || size > available) {
      throw batchError(
          StorageError.CORRUPT_MESSAGE,
          "its length " + size + " does not fit the " + available + " bytes given");
    }
    if (buffer.get(position + MAGIC_OFFSET) != RecordBatch.MAGIC_VALUE_V2) {
      throw batchError(StorageError.CORRUPT_MESSAGE, "not of magic v2");
    }
    short batchAttributes = buffer.getShort(position + ATTRIBUTES_OFFSET);
    baseTimestamp = buffer.getLong(position + BASE_TIMESTAMP_OFFSET);
    logAppendTime =
        (batchAttributes & TIMESTAMP_TYPE_MASK) != 0
            ? buffer.getLong(position + MAX_TIMESTAMP_OFFSET)
            : RecordBatch.NO_TIMESTAMP;
    count = buffer.getInt(position + DefaultRecordBatch.RECORDS_COUNT_OFFSET);
    if (count < 0) {
      throw batchError(StorageError.INVALID_RECORD, "it reports " + count + " records");
    }
    read = 0;
    done = false;
    inflated = 0;
    chunkStart = 0;
    int recordsStart = position + DefaultRecordBatch.RECORD_BATCH_OVERHEAD;
    int end = position + size;
    CompressionType type = compressionOf(batchAttributes);
    if (type == CompressionType.NONE) {
      source = buffer;
      pos = recordsStart;
      limit = end;
      return;
    }
    if (chunk == null) {
      chunk = ByteBuffer.allocate(CHUNK_BYTES);
    }
    source = chunk;
    pos = 0;
    limit = 0;
    if (count == 0) {
      return;
    }
    ByteBuffer compressed = buffer.duplicate().limit(end).position(recordsStart).slice();
    try {
      in = decompression.open(type, compressed, limits);
    } catch (StorageException e) {
      throw new RecordValidationException(e.error(), 0, e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw batchError(StorageError.CORRUPT_MESSAGE, "its records do not decompress (" + e + ")");
    }
  }

  /**
   * Starts reading {@code batch}, wherever it lives (a file, memory): its bytes are first copied
   * into a buffer this reader keeps (the batch's size on disk, never its inflated size).
   */
  public void open(RecordBatch batch, RecordLimits limits, Capture capture) {
    int size = batch.sizeInBytes();
    if (copy.capacity() < size) {
      copy = ByteBuffer.allocate(size);
    }
    copy.clear().limit(size);
    batch.writeTo(copy);
    copy.flip();
    open(copy, 0, limits, capture);
  }

  private CompressionType compressionOf(short batchAttributes) {
    int id = batchAttributes & COMPRESSION_MASK;
    try {
      return CompressionType.forId(id);
    } catch (IllegalArgumentException e) {
      throw batchError(StorageError.CORRUPT_MESSAGE, "unknown compression type " + id);
    }
  }

  /**
   * Reads the next record; false once all the header's records were read and nothing follows them.
   *
   * @throws RecordValidationException if the record, or the batch's end, is not what it claims
   */
  public boolean next() {
    if (done) {
      return false;
    }
    if (read == count) {
      ensureNothingFollows();
      done = true;
      return false;
    }
    long start = consumed();
    int length = readVarint();
    if (length < MIN_BODY_BYTES || length > limits.maxRecordBytes()) {
      throw recordError(
          "its length "
              + length
              + " is not between "
              + MIN_BODY_BYTES
              + " and the limit "
              + limits.maxRecordBytes()
              + " (max.message.bytes x brook.max.inflated.bytes.factor)");
    }
    long bodyStart = consumed();
    long bodyEnd = bodyStart + length;
    attributes = readByte();
    timestampDelta = readVarlong();
    offsetDelta = readVarint();
    int captured = 0;
    keySize = readVarint();
    checkLength(keySize, bodyEnd, "key");
    keyAt = payload(keySize, capture != Capture.NONE, captured);
    if (inScratch && keySize > 0) {
      captured += keySize;
    }
    valueSize = readVarint();
    checkLength(valueSize, bodyEnd, "value");
    valueAt = payload(valueSize, capture == Capture.KEY_AND_VALUE, captured);
    headerCount = readVarint();
    // Each header takes at least two bytes (two empty lengths).
    if (headerCount < 0 || headerCount > (bodyEnd - consumed()) / 2) {
      throw recordError("a header count of " + headerCount + " does not fit the record");
    }
    for (int h = 0; h < headerCount; h++) {
      int headerKey = readVarint();
      if (headerKey < 0) {
        throw recordError("a header key length of " + headerKey);
      }
      checkLength(headerKey, bodyEnd, "header key");
      skip(headerKey);
      int headerValue = readVarint();
      checkLength(headerValue, bodyEnd, "header value");
      if (headerValue > 0) {
        skip(headerValue);
      }
    }
    long end = consumed();
    if (end != bodyEnd) {
      throw recordError(
          "its length is " + length + " bytes but its fields take " + (end - bodyStart));
    }
    sizeInBytes = (int) (end - start);
    read++;
    return true;
  }

  private void checkLength(int length, long bodyEnd, String what) {
    if (length < -1 || length > bodyEnd - consumed()) {
      throw recordError("a " + what + " length of " + length + " does not fit the record");
    }
  }

  /**
   * Moves past a key or value of {@code length} bytes; returns where it starts in {@link #source}
   * (in place) or in {@link #scratch} (captured from a compressed batch at {@code scratchAt}).
   */
  private int payload(int length, boolean keep, int scratchAt) {
    if (in == null) {
      inScratch = false;
      int at = pos;
      if (length > 0) {
        skip(length);
      }
      return at;
    }
    inScratch = true;
    if (length <= 0) {
      return scratchAt;
    }
    if (!keep) {
      skip(length);
      return -1;
    }
    int remaining = length;
    int at = scratchAt;
    while (remaining > 0) {
      if (pos == limit) {
        refill();
      }
      int n = Math.min(remaining, limit - pos);
      growScratch(at + n);
      source.get(pos, scratch, at, n);
      pos += n;
      at += n;
      remaining -= n;
    }
    return scratchAt;
  }

  /** Grows the scratch array with the bytes actually read, doubling, never past one record. */
  private void growScratch(int needed) {
    if (needed <= scratch.length) {
      return;
    }
    long doubled = Math.max(needed, Math.max(256L, 2L * scratch.length));
    int size = (int) Math.min(doubled, limits.maxRecordBytes());
    byte[] grown = new byte[Math.max(size, needed)];
    System.arraycopy(scratch, 0, grown, 0, scratch.length);
    scratch = grown;
  }

  private void ensureNothingFollows() {
    if (pos < limit) {
      throw batchError(
          StorageError.INVALID_RECORD,
          (limit - pos) + " bytes follow its last record (it reports " + count + " records)");
    }
    if (in != null) {
      int extra;
      try {
        extra = in.read(chunk.array(), 0, 1);
      } catch (IOException | RuntimeException e) {
        throw batchError(StorageError.CORRUPT_MESSAGE, "its records do not decompress (" + e + ")");
      }
      if (extra > 0) {
        throw batchError(
            StorageError.INVALID_RECORD,
            "bytes follow its last record (it reports " + count + " records)");
      }
    }
  }

  // ---- Reading bytes ----

  /** Bytes of the (inflated) records consumed so far; only differences are meaningful. */
  private long consumed() {
    return chunkStart + pos;
  }

  private byte readByte() {
    if (pos == limit) {
      refill();
    }
    return source.get(pos++);
  }

  private void skip(int length) {
    if (in == null) {
      if (length > limit - pos) {
        throw truncated();
      }
      pos += length;
      return;
    }
    int remaining = length;
    while (remaining > 0) {
      if (pos == limit) {
        refill();
      }
      int n = Math.min(remaining, limit - pos);
      pos += n;
      remaining -= n;
    }
  }

  /** Decompresses the next chunk; counts it against the batch's inflation limit. */
  private void refill() {
    if (in == null) {
      throw truncated();
    }
    int n;
    try {
      n = in.read(chunk.array(), 0, CHUNK_BYTES);
      // Streams may return 0 while they need more input internally; -1 is the end.
      for (int spins = 0; n == 0 && spins < 16; spins++) {
        n = in.read(chunk.array(), 0, CHUNK_BYTES);
      }
    } catch (IOException | RuntimeException e) {
      if (Decompression.isWindowTooLarge(e)) {
        throw recordError(
            StorageError.INVALID_RECORD,
            "its zstd frame needs a window over 2^"
                + Decompression.ZSTD_WINDOW_LOG_MAX
                + " bytes (compression levels above 19)");
      }
      throw recordError(StorageError.CORRUPT_MESSAGE, "its records do not decompress (" + e + ")");
    }
    if (n <= 0) {
      throw truncated();
    }
    chunkStart += limit;
    pos = 0;
    limit = n;
    inflated += n;
    if (inflated > limits.maxBatchInflatedBytes()) {
      throw recordError(
          StorageError.INVALID_RECORD,
          "the batch's records inflate past "
              + limits.maxBatchInflatedBytes()
              + " bytes, the broker's limit (max.message.bytes x"
              + " brook.max.inflated.bytes.factor)");
    }
  }

  /** A zig-zag varint of at most 5 bytes, as Kafka writes them. */
  private int readVarint() {
    int raw = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      int b = readByte();
      raw |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
    throw recordError("a varint is longer than 5 bytes");
  }

  /** A zig-zag varlong of at most 10 bytes. */
  private long readVarlong() {
    long raw = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      long b = readByte();
      raw |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
    throw recordError("a varlong is longer than 10 bytes");
  }

  // ---- The current record ----

  /** Records read so far in this batch; the current record's index plus one. */
  public int recordsRead() {
    return read;
  }

  /** The record count the batch's header reports. */
  public int headerCount() {
    return count;
  }

  /** The current record's offset delta (its index in a batch as written by a producer). */
  public int offsetDelta() {
    return offsetDelta;
  }

  /** The current record's offset: the batch's base offset plus its delta. */
  public long offset() {
    return baseOffset + offsetDelta;
  }

  /**
   * The current record's timestamp: base timestamp plus delta, or the batch's max timestamp under
   * LogAppendTime (Kafka's rule).
   */
  public long timestamp() {
    return logAppendTime != RecordBatch.NO_TIMESTAMP ? logAppendTime : createTime();
  }

  /** The timestamp the producer wrote (base timestamp plus delta), whatever the batch's type. */
  public long createTime() {
    return baseTimestamp + timestampDelta;
  }

  /** The current record's attributes byte (unused by magic v2, written as 0). */
  public byte attributes() {
    return attributes;
  }

  /** The current record's size, length varint included. */
  public int sizeInBytes() {
    return sizeInBytes;
  }

  /** Key length; -1 for a null key. */
  public int keySize() {
    return keySize;
  }

  /** Value length; -1 for a null value (a tombstone). */
  public int valueSize() {
    return valueSize;
  }

  /** The number of headers of the current record (they are checked, not kept). */
  public int recordHeaderCount() {
    return headerCount;
  }

  public boolean hasKey() {
    return keySize >= 0;
  }

  public boolean hasValue() {
    return valueSize >= 0;
  }

  /**
   * The current key, a read-only view valid until the next call to {@link #next()}; null for a null
   * key.
   *
   * @throws IllegalStateException if a compressed batch was opened without capturing keys
   */
  public ByteBuffer key() {
    if (inScratch && capture == Capture.NONE) {
      throw new IllegalStateException("keys are not captured");
    }
    return view(keyAt, keySize);
  }

  /**
   * The current value, a read-only view valid until the next call to {@link #next()}; null for a
   * tombstone.
   *
   * @throws IllegalStateException if a compressed batch was opened without capturing values
   */
  public ByteBuffer value() {
    if (inScratch && capture != Capture.KEY_AND_VALUE) {
      throw new IllegalStateException("values are not captured");
    }
    return view(valueAt, valueSize);
  }

  private ByteBuffer view(int at, int length) {
    if (length < 0) {
      return null;
    }
    if (inScratch) {
      return ByteBuffer.wrap(scratch, at, length).slice().asReadOnlyBuffer();
    }
    return source.duplicate().limit(at + length).position(at).slice().asReadOnlyBuffer();
  }

  /**
   * Ends the current batch, keeping what the next one can reuse (a zstd decompression context). For
   * readers kept per thread; others {@link #close()}.
   */
  public void endBatch() {
    decompression.end();
    in = null;
    source = null;
  }

  /** Ends the current batch and frees the native memory a zstd batch may have taken. */
  @Override
  public void close() {
    decompression.close();
    in = null;
    source = null;
  }

  // ---- Errors ----

  private StorageException truncated() {
    return recordError("the batch ends inside it (the batch reports " + count + " records)");
  }

  private RecordValidationException recordError(String what) {
    return recordError(StorageError.INVALID_RECORD, what);
  }

  private RecordValidationException recordError(StorageError error, String what) {
    return new RecordValidationException(
        error, read, "record " + read + " of the batch at offset " + baseOffset + ": " + what);
  }

  private RecordValidationException batchError(StorageError error, String what) {
    return new RecordValidationException(
        error, read, "the batch at offset " + baseOffset + ": " + what);
  }
}
