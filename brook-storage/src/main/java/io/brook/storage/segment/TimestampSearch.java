package io.brook.storage.segment;

import io.brook.storage.StorageException;
import io.brook.storage.index.TimestampOffset;
import io.brook.storage.record.BatchRecordReader;
import io.brook.storage.record.RecordLimits;
import java.util.Optional;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The time lookup inside one segment (ListOffsets by time); see {@link LogSegment}. */
final class TimestampSearch {
  private static final Logger log = LoggerFactory.getLogger(TimestampSearch.class);

  private TimestampSearch() {}

  /**
   * The first record with a timestamp at or above {@code targetTimestamp} and an offset at or above
   * {@code startingOffset}, in a pinned segment file. The time index narrows the scan to the
   * batches after the last entry strictly older than the target; only batches whose max timestamp
   * reaches the target are opened, through a {@link BatchRecordReader} bounded by {@code limits}
   * (keys and values are skipped, not decompressed into memory).
   *
   * <p>A batch whose records cannot be read within those bounds (a decompression bomb a follower
   * copied, a corrupt batch) answers with its own first offset at or after {@code startingOffset}:
   * its header says it holds a record at or after the target, and a consumer that seeks there reads
   * at most that batch's earlier records too.
   */
  static Optional<FileRecords.TimestampAndOffset> find(
      SegmentFile file, long targetTimestamp, long startingOffset, RecordLimits limits) {
    TimestampOffset older = file.timeIndexUnchecked().lookup(targetTimestamp - 1);
    long scanFrom = Math.max(older.offset(), startingOffset);
    int position = file.offsetIndexUnchecked().lookup(scanFrom).position();
    try (BatchRecordReader reader = new BatchRecordReader()) {
      for (FileChannelRecordBatch batch : file.records().batchesFrom(position)) {
        if (batch.maxTimestamp() < targetTimestamp || batch.lastOffset() < startingOffset) {
          continue;
        }
        try {
          reader.open(batch, limits, BatchRecordReader.Capture.NONE);
          while (reader.next()) {
            if (reader.timestamp() >= targetTimestamp && reader.offset() >= startingOffset) {
              return Optional.of(
                  new FileRecords.TimestampAndOffset(
                      reader.timestamp(), reader.offset(), leaderEpochOf(batch)));
            }
          }
        } catch (StorageException e) {
          log.warn(
              "Unreadable batch in a time lookup, answering with its first offset file={}"
                  + " baseOffset={} reason={}",
              file.logPath(),
              batch.baseOffset(),
              e.getMessage());
          return Optional.of(
              new FileRecords.TimestampAndOffset(
                  batch.maxTimestamp(),
                  Math.max(batch.baseOffset(), startingOffset),
                  leaderEpochOf(batch)));
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
