package io.brook.storage.producer;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Builds single record batches as producers send them; the log assigns offsets with {@link #at}.
 */
final class TestBatches {
  private TestBatches() {}

  static MutableRecordBatch idempotent(
      long producerId, short epoch, int baseSequence, int count, long timestampMs) {
    return only(
        MemoryRecords.withIdempotentRecords(
            0L, Compression.NONE, producerId, epoch, baseSequence, 0, records(count, timestampMs)));
  }

  static MutableRecordBatch transactional(
      long producerId, short epoch, int baseSequence, int count, long timestampMs) {
    return only(
        MemoryRecords.withTransactionalRecords(
            0L, Compression.NONE, producerId, epoch, baseSequence, 0, records(count, timestampMs)));
  }

  /** A batch without producer id. */
  static MutableRecordBatch plain(int count, long timestampMs) {
    return only(MemoryRecords.withRecords(Compression.NONE, records(count, timestampMs)));
  }

  static MutableRecordBatch marker(
      long producerId,
      short epoch,
      ControlRecordType type,
      int coordinatorEpoch,
      long timestampMs) {
    return only(
        MemoryRecords.withEndTransactionMarker(
            0L,
            timestampMs,
            0,
            producerId,
            epoch,
            new EndTransactionMarker(type, coordinatorEpoch)));
  }

  /** Assigns offsets as the log does: the batch now starts at {@code baseOffset}. */
  static MutableRecordBatch at(MutableRecordBatch batch, long baseOffset) {
    batch.setLastOffset(baseOffset + (batch.lastOffset() - batch.baseOffset()));
    return batch;
  }

  private static SimpleRecord[] records(int count, long timestampMs) {
    SimpleRecord[] records = new SimpleRecord[count];
    for (int i = 0; i < count; i++) {
      records[i] = new SimpleRecord(timestampMs, ("value-" + i).getBytes(StandardCharsets.UTF_8));
    }
    return records;
  }

  private static MutableRecordBatch only(MemoryRecords records) {
    var batches = records.batches().iterator();
    MutableRecordBatch batch = batches.next();
    if (batches.hasNext()) {
      throw new IllegalStateException("expected one batch");
    }
    return batch;
  }
}
