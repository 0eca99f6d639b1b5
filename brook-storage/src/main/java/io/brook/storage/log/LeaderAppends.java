package io.brook.storage.log;

import io.brook.storage.producer.BatchMetadata;
import io.brook.storage.producer.ProducerStateManager;
import java.util.Optional;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/** The leader's edits to incoming batches before they are written: sequence checks, offsets. */
final class LeaderAppends {
  private LeaderAppends() {}

  static Optional<BatchMetadata> findDuplicate(
      MemoryRecords records, ProducerStateManager.Append producers) {
    for (MutableRecordBatch batch : records.batches()) {
      Optional<BatchMetadata> duplicate = producers.checkDuplicateOrValidate(batch);
      if (duplicate.isPresent()) {
        return duplicate;
      }
    }
    return Optional.empty();
  }

  /**
   * Rewrites each batch's base offset (outside the CRC) and leader epoch in place, and under
   * LogAppendTime its max timestamp (which recomputes the CRC over the header, not the records).
   */
  static long assignOffsets(
      MemoryRecords records, long nextOffset, int leaderEpoch, long logAppendTimeMs) {
    long next = nextOffset;
    for (MutableRecordBatch batch : records.batches()) {
      long delta = batch.lastOffset() - batch.baseOffset();
      batch.setLastOffset(next + delta);
      batch.setPartitionLeaderEpoch(leaderEpoch);
      if (logAppendTimeMs >= 0) {
        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, logAppendTimeMs);
      }
      next += delta + 1;
    }
    return next - 1;
  }

  /** The last offset {@link #assignOffsets} would give {@code records}, without changing them. */
  static long lastOffsetIfAssigned(MemoryRecords records, long nextOffset) {
    long next = nextOffset;
    for (MutableRecordBatch batch : records.batches()) {
      next += batch.lastOffset() - batch.baseOffset() + 1;
    }
    return next - 1;
  }
}
