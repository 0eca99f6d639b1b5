package io.brook.storage.log;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * Checks incoming batches before the log takes them, so that nothing a consumer, the cleaner or
 * recovery cannot read ever reaches a segment.
 *
 * <p>Every origin: magic v2, size (at least a header, at most {@code max.message.bytes}), CRC, a
 * positive record count that fits the offsets the header spans, whole batches only. Leader and
 * coordinator appends also get Kafka's {@code LogValidator} checks, record by record ({@link
 * RecordChecks}): the count matches the records really present, offset deltas run 0..count-1, every
 * length adds up, timestamps within bounds, keys on compacted topics, and the batch inflates to at
 * most {@link LogConfig#recordLimits()}; a batch whose header max timestamp differs from its
 * records' largest gets the right one, as Kafka rewrites it.
 *
 * <p>Follower appends ({@link AppendOrigin#REPLICATION}) check only the batch framing, as Kafka's
 * do: the leader validated the records, and a follower that refused a batch its leader holds could
 * never catch up. Everything that reads records from disk (cleaner, time lookups, transaction
 * markers) therefore goes through the bounded {@link io.brook.storage.record.BatchRecordReader} and
 * survives whatever a segment holds.
 *
 * <p>Stateless and thread-safe; runs outside the log's lock so that requests for one partition are
 * checked in parallel.
 */
final class BatchValidator {
  private BatchValidator() {}

  /** Header facts gathered while validating. */
  record Summary(
      int batchCount,
      int recordCount,
      int sizeInBytes,
      long firstBatchTimestamp,
      long maxTimestamp,
      long firstOffset,
      long lastOffset) {}

  /** A follower appends at or after its log end, never over its own tail; returns the start. */
  static long checkReplicatedStart(Summary summary, long logEndOffset) {
    if (summary.firstOffset() < logEndOffset) {
      throw new StorageException(
          StorageError.INVALID_RECORD,
          "replicated batches start at "
              + summary.firstOffset()
              + ", below the log end offset "
              + logEndOffset);
    }
    return summary.firstOffset();
  }

  static Summary validate(
      MemoryRecords records, LogConfig config, AppendOrigin origin, long nowMs) {
    int batchCount = 0;
    int recordCount = 0;
    int validBytes = 0;
    long firstTimestamp = RecordBatch.NO_TIMESTAMP;
    long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    long firstOffset = -1;
    long lastOffset = -1;
    ByteBuffer buffer = records.buffer();
    int position = buffer.position();
    checkFraming(buffer);
    try {
      for (MutableRecordBatch batch : records.batches()) {
        checkBatch(batch, config, origin, nowMs);
        long batchMaxTimestamp = batch.maxTimestamp();
        if (origin != AppendOrigin.REPLICATION) {
          batchMaxTimestamp = checkRecords(buffer, position, batch, config, nowMs);
        }
        position += batch.sizeInBytes();
        if (origin == AppendOrigin.REPLICATION && batch.baseOffset() <= lastOffset) {
          throw new StorageException(
              StorageError.INVALID_RECORD,
              "replicated batch at offset "
                  + batch.baseOffset()
                  + " does not follow the previous batch ending at "
                  + lastOffset);
        }
        if (batchCount == 0) {
          firstTimestamp = batchMaxTimestamp;
          firstOffset = batch.baseOffset();
        }
        lastOffset = batch.lastOffset();
        maxTimestamp = Math.max(maxTimestamp, batchMaxTimestamp);
        batchCount++;
        recordCount += batch.countOrNull();
        validBytes += batch.sizeInBytes();
      }
    } catch (CorruptRecordException e) {
      throw new StorageException(StorageError.CORRUPT_MESSAGE, e.getMessage(), e);
    }
    if (batchCount == 0) {
      throw new StorageException(StorageError.INVALID_RECORD, "the append holds no record batch");
    }
    if (validBytes != records.sizeInBytes()) {
      throw new StorageException(
          StorageError.CORRUPT_MESSAGE,
          "the append ends with "
              + (records.sizeInBytes() - validBytes)
              + " bytes that are not a whole record batch");
    }
    return new Summary(
        batchCount, recordCount, validBytes, firstTimestamp, maxTimestamp, firstOffset, lastOffset);
  }

  /**
   * Every length field describes a whole batch inside the append, checked before kafka-clients'
   * batch iterator sees them: it adds the 12-byte log overhead to the length without checking for
   * overflow, so a length near 2^31 made it throw an unchecked exception.
   */
  private static void checkFraming(ByteBuffer buffer) {
    int position = buffer.position();
    int end = buffer.limit();
    while (end - position >= Records.LOG_OVERHEAD) {
      int length = buffer.getInt(position + Records.SIZE_OFFSET);
      // Too short for its format is the format checks' business (magic first, then size).
      if (length < 0 || length > end - position - Records.LOG_OVERHEAD) {
        throw new StorageException(
            StorageError.CORRUPT_MESSAGE,
            "the batch at byte "
                + (position - buffer.position())
                + " of the append has length "
                + length
                + ", more than the "
                + (end - position - Records.LOG_OVERHEAD)
                + " bytes left");
      }
      position += Records.LOG_OVERHEAD + length;
    }
  }

  private static void checkBatch(
      RecordBatch batch, LogConfig config, AppendOrigin origin, long nowMs) {
    byte magic = batch.magic();
    if (magic < RecordBatch.MAGIC_VALUE_V2) {
      throw new StorageException(
          StorageError.INVALID_RECORD,
          "record batches must use magic v2 (message format v2), got v" + magic);
    }
    if (magic > RecordBatch.MAGIC_VALUE_V2) {
      throw new StorageException(
          StorageError.CORRUPT_MESSAGE, "unknown record batch magic v" + magic);
    }
    int size = batch.sizeInBytes();
    if (size < DefaultRecordBatch.RECORD_BATCH_OVERHEAD) {
      throw new StorageException(
          StorageError.CORRUPT_MESSAGE,
          "record batch of " + size + " bytes is shorter than its own header");
    }
    if (size > config.maxMessageBytes()) {
      throw new StorageException(
          StorageError.MESSAGE_TOO_LARGE,
          "record batch of "
              + size
              + " bytes exceeds max.message.bytes="
              + config.maxMessageBytes());
    }
    if (!batch.isValid()) {
      throw new StorageException(
          StorageError.CORRUPT_MESSAGE,
          "record batch at offset "
              + batch.baseOffset()
              + " fails its CRC (stored "
              + batch.checksum()
              + ")");
    }
    checkOffsetsAndCount(batch, origin);
    if (origin != AppendOrigin.REPLICATION) {
      checkProducerFields(batch, origin);
      checkTimestampType(batch, config);
    }
  }

  /**
   * Walks the records ({@link RecordChecks}) and returns their largest timestamp, writing it into
   * the header if the producer wrote another one (under CreateTime the time index and retention
   * trust the header). Under LogAppendTime the header is stamped at append instead.
   */
  private static long checkRecords(
      ByteBuffer buffer, int position, MutableRecordBatch batch, LogConfig config, long nowMs) {
    long recordsMax = RecordChecks.check(buffer, position, batch, config, nowMs);
    if (config.timestampType() != TimestampType.CREATE_TIME) {
      return batch.maxTimestamp();
    }
    if (recordsMax != batch.maxTimestamp()) {
      batch.setMaxTimestamp(TimestampType.CREATE_TIME, recordsMax);
    }
    return recordsMax;
  }

  private static void checkOffsetsAndCount(RecordBatch batch, AppendOrigin origin) {
    long offsetsSpanned = batch.lastOffset() - batch.baseOffset() + 1;
    Integer count = batch.countOrNull();
    if (offsetsSpanned <= 0) {
      throw new StorageException(
          StorageError.INVALID_RECORD,
          "record batch has an invalid offset range ["
              + batch.baseOffset()
              + ", "
              + batch.lastOffset()
              + "]");
    }
    if (count == null || count <= 0) {
      throw new StorageException(
          StorageError.INVALID_RECORD, "record batch reports " + count + " records");
    }
    // Compaction leaves gaps, so a replicated batch may hold fewer records than offsets.
    boolean mustBeDense = origin != AppendOrigin.REPLICATION;
    if (count > offsetsSpanned || (mustBeDense && count != offsetsSpanned)) {
      throw new StorageException(
          StorageError.INVALID_RECORD,
          "record batch spans " + offsetsSpanned + " offsets but reports " + count + " records");
    }
  }

  private static void checkProducerFields(RecordBatch batch, AppendOrigin origin) {
    if (batch.isControlBatch() && origin == AppendOrigin.CLIENT) {
      throw new StorageException(
          StorageError.INVALID_RECORD, "clients may not write control records");
    }
    if (batch.isControlBatch() && batch.countOrNull() != 1) {
      throw new StorageException(
          StorageError.INVALID_RECORD, "a control batch holds exactly one record");
    }
    if (batch.hasProducerId() && batch.baseSequence() < 0 && !batch.isControlBatch()) {
      throw new StorageException(
          StorageError.INVALID_RECORD,
          "invalid sequence number "
              + batch.baseSequence()
              + " for producer id "
              + batch.producerId());
    }
    if (batch.isTransactional() && !batch.hasProducerId()) {
      throw new StorageException(
          StorageError.INVALID_RECORD, "a transactional batch needs a producer id");
    }
  }

  /**
   * Under CreateTime a producer may not claim LogAppendTime (Kafka's rule); the records' own
   * timestamps are checked against the bounds by {@link RecordChecks}.
   */
  private static void checkTimestampType(RecordBatch batch, LogConfig config) {
    if (config.timestampType() == TimestampType.CREATE_TIME
        && batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
      throw new StorageException(
          StorageError.INVALID_TIMESTAMP,
          "a producer may not set timestamp type LogAppendTime on a CreateTime topic");
    }
  }
}
