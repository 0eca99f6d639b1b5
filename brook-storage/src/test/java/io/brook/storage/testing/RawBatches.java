package io.brook.storage.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.apache.kafka.common.utils.internals.ByteUtils;

/**
 * Record batches built byte by byte, so that tests can make every field lie: record lengths, key,
 * value and header lengths, header counts, offset deltas, the header's record count and last offset
 * delta, bytes after the last record, and compressed payloads of any inflated size. The CRC is
 * always right (it is computed last), so only the lie under test is wrong.
 */
public final class RawBatches {
  private RawBatches() {}

  /** One record's fields and the lies to tell about them. */
  public static final class Record {
    long timestampDelta;
    int offsetDelta;
    byte[] key;
    byte[] value;
    final List<byte[][]> headers = new ArrayList<>();
    int lengthDelta;
    Integer keyLength;
    Integer valueLength;
    Integer headerCount;
    Integer firstHeaderKeyLength;

    public static Record of(int offsetDelta, String key, String value) {
      Record r = new Record();
      r.offsetDelta = offsetDelta;
      r.key = key == null ? null : key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      r.value = value == null ? null : value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      return r;
    }

    public Record value(byte[] bytes) {
      value = bytes;
      return this;
    }

    public Record timestampDelta(long delta) {
      timestampDelta = delta;
      return this;
    }

    public Record header(String k, String v) {
      headers.add(
          new byte[][] {
            k.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            v == null ? null : v.getBytes(java.nio.charset.StandardCharsets.UTF_8)
          });
      return this;
    }

    /** Adds {@code delta} to the true body length written in the length varint. */
    public Record lengthDelta(int delta) {
      lengthDelta = delta;
      return this;
    }

    public Record keyLength(int length) {
      keyLength = length;
      return this;
    }

    public Record valueLength(int length) {
      valueLength = length;
      return this;
    }

    public Record headerCount(int count) {
      headerCount = count;
      return this;
    }

    public Record firstHeaderKeyLength(int length) {
      firstHeaderKeyLength = length;
      return this;
    }

    byte[] bytes() {
      ByteBuffer body = ByteBuffer.allocate(64 + size(key) + size(value) + headerBytes());
      body.put((byte) 0);
      ByteUtils.writeVarlong(timestampDelta, body);
      ByteUtils.writeVarint(offsetDelta, body);
      lengthAndBytes(body, keyLength, key);
      lengthAndBytes(body, valueLength, value);
      ByteUtils.writeVarint(headerCount != null ? headerCount : headers.size(), body);
      for (int i = 0; i < headers.size(); i++) {
        byte[][] h = headers.get(i);
        lengthAndBytes(body, i == 0 ? firstHeaderKeyLength : null, h[0]);
        lengthAndBytes(body, null, h[1]);
      }
      body.flip();
      ByteBuffer out = ByteBuffer.allocate(body.remaining() + 5);
      ByteUtils.writeVarint(body.remaining() + lengthDelta, out);
      out.put(body).flip();
      byte[] bytes = new byte[out.remaining()];
      out.get(bytes);
      return bytes;
    }

    private int headerBytes() {
      int n = 0;
      for (byte[][] h : headers) {
        n += 10 + size(h[0]) + size(h[1]);
      }
      return n;
    }

    private static int size(byte[] b) {
      return b == null ? 0 : b.length;
    }

    private static void lengthAndBytes(ByteBuffer out, Integer lie, byte[] bytes) {
      ByteUtils.writeVarint(lie != null ? lie : bytes == null ? -1 : bytes.length, out);
      if (bytes != null) {
        out.put(bytes);
      }
    }
  }

  /** A batch's header fields and payload; build with {@link #build()}. */
  public static final class Batch {
    private CompressionType compression = CompressionType.NONE;
    private final List<Record> records = new ArrayList<>();
    private Integer count;
    private Integer lastOffsetDelta;
    private long baseTimestamp;
    private Long maxTimestamp;
    private TimestampType timestampType = TimestampType.CREATE_TIME;
    private byte[] trailing = new byte[0];
    private long zeroBytes;
    private long producerId = RecordBatch.NO_PRODUCER_ID;
    private boolean control;

    public Batch compression(CompressionType type) {
      compression = type;
      return this;
    }

    public Batch add(Record record) {
      records.add(record);
      return this;
    }

    /** The header's record count (by default the number of records added). */
    public Batch count(int value) {
      count = value;
      return this;
    }

    /** The header's last offset delta (by default count - 1). */
    public Batch lastOffsetDelta(int value) {
      lastOffsetDelta = value;
      return this;
    }

    public Batch baseTimestamp(long value) {
      baseTimestamp = value;
      return this;
    }

    public Batch maxTimestamp(long value) {
      maxTimestamp = value;
      return this;
    }

    public Batch timestampType(TimestampType type) {
      timestampType = type;
      return this;
    }

    public Batch control(long producerIdOfMarker) {
      control = true;
      producerId = producerIdOfMarker;
      return this;
    }

    /** Bytes written after the last record (inside the compressed payload, if compressed). */
    public Batch trailing(byte[] bytes) {
      trailing = bytes;
      return this;
    }

    /**
     * One record whose value is {@code bytes} zeros, streamed into the compressor without ever
     * being materialized: the decompression bomb.
     */
    public Batch zeroRecord(long bytes) {
      zeroBytes = bytes;
      return this;
    }

    public MemoryRecords build() {
      ByteBufferOutputStream payload = new ByteBufferOutputStream(1024);
      payload.position(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
      try (OutputStream out =
          Compression.of(compression).build().wrapForOutput(payload, RecordBatch.MAGIC_VALUE_V2)) {
        for (Record r : records) {
          out.write(r.bytes());
        }
        if (zeroBytes > 0) {
          writeZeroRecord(out, zeroBytes);
        }
        out.write(trailing);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      ByteBuffer buffer = payload.buffer();
      int size = buffer.position();
      int n = count != null ? count : records.size() + (zeroBytes > 0 ? 1 : 0);
      long max = maxTimestamp != null ? maxTimestamp : baseTimestamp;
      DefaultRecordBatch.writeHeader(
          buffer.duplicate().position(0),
          0L,
          lastOffsetDelta != null ? lastOffsetDelta : n - 1,
          size,
          RecordBatch.MAGIC_VALUE_V2,
          compression,
          timestampType,
          baseTimestamp,
          max,
          producerId,
          control ? (short) 0 : RecordBatch.NO_PRODUCER_EPOCH,
          RecordBatch.NO_SEQUENCE,
          control,
          control,
          false,
          RecordBatch.NO_PARTITION_LEADER_EPOCH,
          n);
      ByteBuffer batch = ByteBuffer.allocate(size);
      batch.put(buffer.duplicate().flip()).flip();
      fixCrc(batch, 0);
      return MemoryRecords.readableRecords(batch);
    }

    /** A record of {@code valueBytes} zeros, body length varint first, streamed in 64 KiB. */
    private static void writeZeroRecord(OutputStream out, long valueBytes) throws IOException {
      ByteBuffer head = ByteBuffer.allocate(32);
      head.put((byte) 0);
      ByteUtils.writeVarlong(0, head);
      ByteUtils.writeVarint(0, head);
      ByteUtils.writeVarint(-1, head);
      ByteUtils.writeVarint((int) valueBytes, head);
      int headBytes = head.position();
      ByteBuffer length = ByteBuffer.allocate(5);
      // body = head + value + one byte of header count
      ByteUtils.writeVarint((int) (headBytes + valueBytes + 1), length);
      out.write(length.array(), 0, length.position());
      out.write(head.array(), 0, headBytes);
      byte[] zeros = new byte[64 * 1024];
      for (long left = valueBytes; left > 0; left -= zeros.length) {
        out.write(zeros, 0, (int) Math.min(zeros.length, left));
      }
      out.write(0);
    }
  }

  public static Batch batch() {
    return new Batch();
  }

  /** Recomputes the CRC32C of the batch at {@code position} (attributes to the end). */
  public static void fixCrc(ByteBuffer buffer, int position) {
    int size = buffer.getInt(position + 8) + 12;
    CRC32C crc = new CRC32C();
    ByteBuffer covered = buffer.duplicate();
    covered
        .limit(position + size)
        .position(position + DefaultRecordBatch.CRC_OFFSET + Integer.BYTES);
    crc.update(covered);
    buffer.putInt(position + DefaultRecordBatch.CRC_OFFSET, (int) crc.getValue());
  }
}
