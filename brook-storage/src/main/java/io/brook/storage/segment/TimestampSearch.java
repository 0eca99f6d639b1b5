package io.brook.storage.segment;

import io.brook.storage.index.TimestampOffset;
import java.util.Optional;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/** The time lookup inside one segment (ListOffsets by time); see {@link LogSegment}. */
final class TimestampSearch {
  private TimestampSearch() {}

  /**
   * The first record with a timestamp at or above {@code targetTimestamp} and an offset at or above
   * {@code startingOffset}, in a pinned segment file. The time index narrows the scan to the
   * batches after the last entry strictly older than the target; only batches whose max timestamp
   * reaches the target are opened (decompressed) to find the exact record.
   */
  static Optional<FileRecords.TimestampAndOffset> find(
      SegmentFile file, long targetTimestamp, long startingOffset) {
    TimestampOffset older = file.timeIndexUnchecked().lookup(targetTimestamp - 1);
    long scanFrom = Math.max(older.offset(), startingOffset);
    int position = file.offsetIndexUnchecked().lookup(scanFrom).position();
    try (BufferSupplier buffers = BufferSupplier.create()) {
      for (FileChannelRecordBatch batch : file.records().batchesFrom(position)) {
        if (batch.maxTimestamp() < targetTimestamp || batch.lastOffset() < startingOffset) {
          continue;
        }
        try (CloseableIterator<Record> records = batch.streamingIterator(buffers)) {
          while (records.hasNext()) {
            Record record = records.next();
            if (record.timestamp() >= targetTimestamp && record.offset() >= startingOffset) {
              return Optional.of(
                  new FileRecords.TimestampAndOffset(
                      record.timestamp(), record.offset(), leaderEpochOf(batch)));
            }
          }
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<Integer> leaderEpochOf(RecordBatch batch) {
    int epoch = batch.partitionLeaderEpoch();
    return epoch == RecordBatch.NO_PARTITION_LEADER_EPOCH ? Optional.empty() : Optional.of(epoch);
  }
}
