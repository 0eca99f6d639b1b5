package io.brook.storage.txn;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Transactional batches and markers as producers and coordinators send them. */
final class TxnRecords {
  /** The manual clock of {@code LogFixture}. */
  static final long NOW_MS = 1_700_000_000_000L;

  private TxnRecords() {}

  static MemoryRecords txn(long producerId, int baseSequence, int count) {
    return MemoryRecords.withTransactionalRecords(
        0L, Compression.NONE, producerId, (short) 0, baseSequence, 0, records(count));
  }

  static MemoryRecords idempotent(long producerId, int baseSequence, int count) {
    return MemoryRecords.withIdempotentRecords(
        0L, Compression.NONE, producerId, (short) 0, baseSequence, 0, records(count));
  }

  static MemoryRecords plain(int count) {
    return MemoryRecords.withRecords(Compression.NONE, records(count));
  }

  static MemoryRecords commit(long producerId, int coordinatorEpoch) {
    return marker(producerId, ControlRecordType.COMMIT, coordinatorEpoch);
  }

  static MemoryRecords abort(long producerId, int coordinatorEpoch) {
    return marker(producerId, ControlRecordType.ABORT, coordinatorEpoch);
  }

  static MemoryRecords marker(long producerId, ControlRecordType type, int coordinatorEpoch) {
    return MemoryRecords.withEndTransactionMarker(
        0L,
        NOW_MS,
        RecordBatch.NO_PARTITION_LEADER_EPOCH,
        producerId,
        (short) 0,
        new EndTransactionMarker(type, coordinatorEpoch));
  }

  private static SimpleRecord[] records(int count) {
    SimpleRecord[] records = new SimpleRecord[count];
    for (int i = 0; i < count; i++) {
      records[i] = new SimpleRecord(NOW_MS, ("v" + i).getBytes(StandardCharsets.UTF_8));
    }
    return records;
  }
}
