package io.brook.storage.testing;

import io.brook.storage.log.PartitionLog;
import java.io.ByteArrayOutputStream;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/** Reads a whole log the way a consumer would, one fetch at a time. */
public final class LogReads {
  private LogReads() {}

  /** Every stored byte from {@code from} to {@code upTo}, batch after batch across segments. */
  public static byte[] bytes(PartitionLog log, long from, long upTo) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long next = from;
    while (next < upTo) {
      MemoryRecords chunk = log.read(next, 1 << 20, upTo, true).slice().copyToMemory();
      long before = next;
      for (RecordBatch batch : chunk.batches()) {
        byte[] copy = new byte[batch.sizeInBytes()];
        batch.writeTo(java.nio.ByteBuffer.wrap(copy));
        out.writeBytes(copy);
        next = batch.nextOffset();
      }
      if (next == before) {
        throw new AssertionError("no progress reading at offset " + next);
      }
    }
    return out.toByteArray();
  }

  /** Every offset from {@code from} to {@code upTo}, across segments. */
  public static java.util.List<Long> offsets(PartitionLog log, long from, long upTo) {
    return Batches.offsets(
        MemoryRecords.readableRecords(java.nio.ByteBuffer.wrap(bytes(log, from, upTo))));
  }

  public static byte[] bytes(PartitionLog log) {
    return bytes(log, log.logStartOffset(), log.logEndOffset());
  }
}
