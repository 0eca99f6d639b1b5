package io.brook.storage.log;

import io.brook.storage.StorageError;
import io.brook.storage.record.BatchRecordReader;
import io.brook.storage.record.RecordLimits;
import io.brook.storage.record.RecordValidationException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The record-level half of {@link BatchValidator}, for leader and coordinator appends: walks every
 * record of a batch with a {@link BatchRecordReader} (in place when uncompressed, through a bounded
 * decompression stream otherwise) and checks what Kafka's {@code LogValidator} checks, plus the
 * record framing Kafka leaves to its iterators:
 *
 * <ul>
 *   <li>the batch holds exactly its header's record count, and nothing after the last record;
 *   <li>offset deltas run 0, 1, 2, ... (the header's last offset delta was checked against the
 *       count already, so the last delta is {@code count - 1});
 *   <li>every length (record, key, value, header count, header key and value) fits the bytes;
 *   <li>under CreateTime, every record's timestamp lies within {@code
 *       message.timestamp.before.max.ms} / {@code message.timestamp.after.max.ms} of the broker's
 *       clock;
 *   <li>on a compacted topic, every record has a key;
 *   <li>the batch inflates to at most {@link LogConfig#recordLimits()}.
 * </ul>
 *
 * <p>No allocation per record, and none per batch for an uncompressed one: each thread keeps one
 * reader (produce requests are validated on the network threads, a handful).
 */
final class RecordChecks {
  private RecordChecks() {}

  /** A thread's reader and the limits of the last settings it saw (rebuilt when they change). */
  private static final class State {
    final BatchRecordReader reader = new BatchRecordReader();
    int maxMessageBytes = -1;
    int factor = -1;
    RecordLimits limits;

    RecordLimits limitsFor(LogConfig cfg) {
      if (cfg.maxMessageBytes() != maxMessageBytes || cfg.maxInflatedBytesFactor() != factor) {
        maxMessageBytes = cfg.maxMessageBytes();
        factor = cfg.maxInflatedBytesFactor();
        limits = cfg.recordLimits();
      }
      return limits;
    }
  }

  private static final ThreadLocal<State> STATE = ThreadLocal.withInitial(State::new);

  /**
   * Checks the records of {@code batch}, which starts at {@code buffer[position]}; returns the
   * largest record timestamp (the producer's, {@link RecordBatch#NO_TIMESTAMP} if none).
   *
   * @throws RecordValidationException naming the first bad record
   */
  static long check(
      ByteBuffer buffer, int position, RecordBatch batch, LogConfig config, long nowMs) {
    State state = STATE.get();
    BatchRecordReader reader = state.reader;
    reader.open(buffer, position, state.limitsFor(config), BatchRecordReader.Capture.NONE);
    try {
      boolean checkTimes =
          config.timestampType() == TimestampType.CREATE_TIME
              && batch.timestampType() == TimestampType.CREATE_TIME;
      boolean needKeys = config.compacted() && !batch.isControlBatch();
      long maxTimestamp = RecordBatch.NO_TIMESTAMP;
      int index = 0;
      while (reader.next()) {
        if (reader.offsetDelta() != index) {
          throw new RecordValidationException(
              StorageError.INVALID_RECORD,
              index,
              "record " + index + " has offset delta " + reader.offsetDelta() + ", not " + index);
        }
        if (needKeys && !reader.hasKey()) {
          throw new RecordValidationException(
              StorageError.INVALID_RECORD,
              index,
              "record " + index + " has no key: a compacted topic accepts only keyed records");
        }
        long timestamp = reader.createTime();
        if (checkTimes && timestamp != RecordBatch.NO_TIMESTAMP) {
          checkTimestamp(timestamp, index, config, nowMs);
        }
        maxTimestamp = Math.max(maxTimestamp, timestamp);
        index++;
      }
      return maxTimestamp;
    } finally {
      reader.endBatch();
    }
  }

  private static void checkTimestamp(long timestamp, int index, LogConfig config, long nowMs) {
    // now - before <= timestamp <= now + after, without overflow (both bounds may be MAX_VALUE).
    long after = config.timestampAfterMaxMs();
    long earliest = nowMs - config.timestampBeforeMaxMs();
    long latest = after > Long.MAX_VALUE - nowMs ? Long.MAX_VALUE : nowMs + after;
    if (timestamp < earliest || timestamp > latest) {
      throw new RecordValidationException(
          StorageError.INVALID_TIMESTAMP,
          index,
          "record "
              + index
              + " has timestamp "
              + timestamp
              + ", outside ["
              + "now - message.timestamp.before.max.ms="
              + config.timestampBeforeMaxMs()
              + ", now + message.timestamp.after.max.ms="
              + config.timestampAfterMaxMs()
              + "] of the broker's clock "
              + nowMs);
    }
  }
}
