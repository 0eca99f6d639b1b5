package io.brook.storage.log;

import java.util.List;

/**
 * The outcome of one append.
 *
 * @param firstOffset offset of the first record written (or of the original write, for a duplicate)
 * @param lastOffset offset of the last record written
 * @param maxTimestamp largest timestamp among the batches (after LogAppendTime stamping)
 * @param logAppendTimeMs the broker time stamped on the batches, or -1 under CreateTime
 * @param logStartOffset the log start offset after the append
 * @param recordCount records appended (from batch headers; 0 for a duplicate)
 * @param validBytes bytes appended
 * @param duplicate true when the producer retried a batch already in the log: nothing was appended
 *     and the offsets are the original ones
 * @param batches producer id, epoch, sequence range and kind of every stored batch
 */
public record LogAppendInfo(
    long firstOffset,
    long lastOffset,
    long maxTimestamp,
    long logAppendTimeMs,
    long logStartOffset,
    int recordCount,
    int validBytes,
    boolean duplicate,
    List<AppendedBatch> batches) {
  /** A retried batch already in the log: nothing appended, the original offsets returned. */
  static LogAppendInfo duplicateOf(
      io.brook.storage.producer.BatchMetadata original, long logStartOffset) {
    return new LogAppendInfo(
        original.firstOffset(),
        original.lastOffset(),
        original.maxTimestamp(),
        org.apache.kafka.common.record.internal.RecordBatch.NO_TIMESTAMP,
        logStartOffset,
        0,
        0,
        true,
        List.of());
  }
}
