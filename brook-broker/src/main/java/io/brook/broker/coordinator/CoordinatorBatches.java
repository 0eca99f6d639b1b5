package io.brook.broker.coordinator;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.log.CoordinatorLog;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The record batches of coordinator writes. Uncompressed: the coordinator topics are created with
 * {@code compression.type=uncompressed}, and their records are small and read back at every load.
 */
final class CoordinatorBatches {
  private CoordinatorBatches() {}

  /** One batch holding {@code records} in order, stamped {@code timestampMs}. */
  static MemoryRecords toBatch(List<? extends CoordinatorLog.Entry> records, long timestampMs) {
    return MemoryRecords.withRecords(Compression.NONE, simple(records, timestampMs));
  }

  /**
   * One transactional batch of {@code producerId}. The log checks sequences of coordinator appends
   * as it does for clients, so the caller passes the producer's next sequence in this partition.
   */
  static MemoryRecords toTransactionalBatch(
      List<? extends CoordinatorLog.Entry> records,
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

  private static SimpleRecord[] simple(
      List<? extends CoordinatorLog.Entry> records, long timestampMs) {
    SimpleRecord[] simple = new SimpleRecord[records.size()];
    for (int i = 0; i < simple.length; i++) {
      CoordinatorLog.Entry record = records.get(i);
      simple[i] = new SimpleRecord(timestampMs, record.recordKey(), record.recordValue());
    }
    return simple;
  }
}
