package io.brook.tests;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.apache.kafka.common.utils.internals.ByteUtils;

/** Produce payloads that are well-framed and CRC-correct but lie about their records. */
final class HostileBatches {
  private HostileBatches() {}

  /**
   * One real record in a batch whose header claims {@code claimed} records (its last offset delta
   * agrees, so every header check passes): accepted as is, it would move the log end by {@code
   * claimed} and leave consumers a batch they cannot read.
   */
  static ByteBuffer lyingRecordCount(int claimed, long timestamp) {
    ByteBuffer batch =
        MemoryRecords.withRecords(
                Compression.NONE, new SimpleRecord(timestamp, "key".getBytes(), "value".getBytes()))
            .buffer();
    batch.putInt(DefaultRecordBatch.LAST_OFFSET_DELTA_OFFSET, claimed - 1);
    batch.putInt(DefaultRecordBatch.RECORDS_COUNT_OFFSET, claimed);
    fixCrc(batch);
    return batch;
  }

  /**
   * A decompression bomb: one record whose value is {@code zeros} zero bytes, written through the
   * codec in 64 KiB pieces (never materialized), with a key so compacted topics take it too.
   */
  static ByteBuffer bomb(CompressionType type, long zeros, long timestamp) {
    ByteBufferOutputStream payload = new ByteBufferOutputStream(64 * 1024);
    payload.position(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
    byte[] key = "bomb".getBytes();
    try (OutputStream out =
        Compression.of(type).build().wrapForOutput(payload, RecordBatch.MAGIC_VALUE_V2)) {
      ByteBuffer head = ByteBuffer.allocate(32);
      head.put((byte) 0);
      ByteUtils.writeVarlong(0, head);
      ByteUtils.writeVarint(0, head);
      ByteUtils.writeVarint(key.length, head);
      head.put(key);
      ByteUtils.writeVarint((int) zeros, head);
      ByteBuffer length = ByteBuffer.allocate(5);
      ByteUtils.writeVarint((int) (head.position() + zeros + 1), length);
      out.write(length.array(), 0, length.position());
      out.write(head.array(), 0, head.position());
      byte[] chunk = new byte[64 * 1024];
      for (long left = zeros; left > 0; left -= chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
      out.write(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ByteBuffer written = payload.buffer();
    int size = written.position();
    ByteBuffer batch = ByteBuffer.allocate(size);
    batch.put(written.duplicate().flip());
    DefaultRecordBatch.writeHeader(
        batch.duplicate().position(0),
        0L,
        0,
        size,
        RecordBatch.MAGIC_VALUE_V2,
        type,
        TimestampType.CREATE_TIME,
        timestamp,
        timestamp,
        RecordBatch.NO_PRODUCER_ID,
        RecordBatch.NO_PRODUCER_EPOCH,
        RecordBatch.NO_SEQUENCE,
        false,
        false,
        false,
        RecordBatch.NO_PARTITION_LEADER_EPOCH,
        1);
    batch.flip();
    fixCrc(batch);
    return batch;
  }

  private static void fixCrc(ByteBuffer batch) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    ByteBuffer covered = batch.duplicate();
    covered.position(DefaultRecordBatch.CRC_OFFSET + Integer.BYTES);
    crc.update(covered);
    batch.putInt(DefaultRecordBatch.CRC_OFFSET, (int) crc.getValue());
  }
}
