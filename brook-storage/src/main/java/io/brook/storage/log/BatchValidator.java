package io.brook.storage.log;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Checks incoming batches before the log takes them, from their headers only: the append path never
 * decompresses. The one exception is a compacted topic, whose records must all carry a key (Kafka's
 * rule, which needs the records themselves).
 *
 * <p>Stateless and thread-safe; runs outside the log's lock so that CRC checks of different
 * requests proceed in parallel.
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
    try {
      for (MutableRecordBatch batch : records.batches()) {
        checkBatch(batch, config, origin, nowMs);
        if (origin == AppendOrigin.REPLICATION && batch.baseOffset() <= lastOffset) {
          throw new StorageException(
              StorageError.INVALID_RECORD,
              "replicated batch at offset "
                  + batch.baseOffset()
                  + " does not follow the previous batch ending at "
                  + lastOffset);
        }
        if (batchCount == 0) {
          firstTimestamp = batch.maxTimestamp();
          firstOffset = batch.baseOffset();
        }
        lastOffset = batch.lastOffset();
        maxTimestamp = Math.max(maxTimestamp, batch.maxTimestamp());
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
      checkTimestamps(batch, config, nowMs);
      if (config.compacted() && !batch.isControlBatch()) {
        checkKeys(batch);
      }
    }
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
   * CreateTime bounds from the header: the max timestamp against {@code
   * message.timestamp.after.max.ms} and the first record's timestamp against {@code
   * message.timestamp.before.max.ms}. Producers write records in time order, so the first record's
   * timestamp is the batch's oldest in practice; checking every record would mean decompressing.
   */
  private static void checkTimestamps(RecordBatch batch, LogConfig config, long nowMs) {
    if (config.timestampType() != TimestampType.CREATE_TIME
        || batch.timestampType() != TimestampType.CREATE_TIME) {
      return;
    }
    long max = batch.maxTimestamp();
    if (max != RecordBatch.NO_TIMESTAMP && max - nowMs > config.timestampAfterMaxMs()) {
      throw new StorageException(
          StorageError.INVALID_TIMESTAMP,
          "timestamp "
              + max
              + " is more than message.timestamp.after.max.ms="
              + config.timestampAfterMaxMs()
              + " ahead of the broker's clock "
              + nowMs);
    }
    if (config.timestampBeforeMaxMs() != Long.MAX_VALUE
        && batch instanceof DefaultRecordBatch defaultBatch) {
      long first = defaultBatch.baseTimestamp();
      if (first != RecordBatch.NO_TIMESTAMP && nowMs - first > config.timestampBeforeMaxMs()) {
        throw new StorageException(
            StorageError.INVALID_TIMESTAMP,
            "timestamp "
                + first
                + " is more than message.timestamp.before.max.ms="
                + config.timestampBeforeMaxMs()
                + " behind the broker's clock "
                + nowMs);
      }
    }
  }

  private static void checkKeys(RecordBatch batch) {
    boolean allKeyed = true;
    try (CloseableIterator<org.apache.kafka.common.record.internal.Record> it =
        batch.streamingIterator(BufferSupplier.NO_CACHING)) {
      while (allKeyed && it.hasNext()) {
        allKeyed = it.next().hasKey();
      }
    } catch (KafkaException e) {
      throw new StorageException(
          StorageError.CORRUPT_MESSAGE, "record batch cannot be read: " + e.getMessage(), e);
    }
    if (!allKeyed) {
      throw new StorageException(
          StorageError.INVALID_RECORD, "a compacted topic accepts only records with a key");
    }
  }
}
