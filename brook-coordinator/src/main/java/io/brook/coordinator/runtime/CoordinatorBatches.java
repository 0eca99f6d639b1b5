package io.brook.coordinator.runtime;

import io.brook.coordinator.TxnResult;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Coordinator records to and from Kafka record batches. */
final class CoordinatorBatches {
  private CoordinatorBatches() {}

  /** One uncompressed batch holding {@code records} in order, stamped {@code timestampMs}. */
  static MemoryRecords toBatch(List<CoordinatorRecord> records, long timestampMs) {
    return MemoryRecords.withRecords(Compression.NONE, simple(records, timestampMs));
  }

  /**
   * One uncompressed transactional batch of {@code producerId}. The log checks sequences of
   * coordinator appends as it does for clients, so the caller passes the producer's next sequence
   * in this partition.
   */
  static MemoryRecords toTransactionalBatch(
      List<CoordinatorRecord> records,
      long timestampMs,
      long producerId,
      short producerEpoch,
      int baseSequence) {
    return MemoryRecords.withTransactionalRecords(
        Compression.NONE, producerId, producerEpoch, baseSequence, simple(records, timestampMs));
  }

  /** The control batch holding a COMMIT or ABORT marker of {@code producerId}. */
  static MemoryRecords toMarker(
      long timestampMs,
      long producerId,
      short producerEpoch,
      int coordinatorEpoch,
      TxnResult result) {
    ControlRecordType type =
        result == TxnResult.COMMIT ? ControlRecordType.COMMIT : ControlRecordType.ABORT;
    return MemoryRecords.withEndTransactionMarker(
        timestampMs, producerId, producerEpoch, new EndTransactionMarker(type, coordinatorEpoch));
  }

  private static SimpleRecord[] simple(List<CoordinatorRecord> records, long timestampMs) {
    SimpleRecord[] simple = new SimpleRecord[records.size()];
    for (int i = 0; i < simple.length; i++) {
      CoordinatorRecord record = records.get(i);
      ByteBuffer value = record.value() == null ? null : record.value().duplicate();
      simple[i] = new SimpleRecord(timestampMs, record.recordKey(), value);
    }
    return simple;
  }
}
