package io.brook.coordinator.runtime;

import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.PartitionLog;
import java.nio.ByteBuffer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.TransactionResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds a shard by replaying its partition from the log start to the log end: records of
 * transactional batches with their producer, and transaction markers as the end of that producer's
 * transaction, in log order.
 *
 * <p>To the log end, not the high watermark: a broker that just became leader learned its high
 * watermark from its last fetch as a follower, one round behind the old leader's, so records the
 * old leader had committed (an offset commit, a member leaving) can sit above it. Everything in the
 * new leader's log becomes committed as its followers catch up, since leaders never truncate their
 * own logs; were it to lose leadership first, the shard is unloaded anyway.
 *
 * <p>Whatever the partition holds, loading goes on: a record that does not parse or that its shard
 * cannot apply, a record over the size cap, and the rest of a batch that cannot be read or that
 * inflates past the cap are skipped and logged with their partition and offset (see {@link
 * BoundedBatchReader}). Only an error outside one record's replay (the log cannot be read, an Error
 * other than a reader's stack or heap exhaustion) stops it.
 */
final class ShardLoader {
  private static final Logger log = LoggerFactory.getLogger(ShardLoader.class);

  /**
   * What a load did.
   *
   * @param replayed records applied to the shard
   * @param skipped records skipped, plus one for each batch whose rest was skipped
   */
  record Result(long replayed, long skipped) {}

  /** Caps on what loading reads of one record and one batch; see {@link BoundedBatchReader}. */
  record Limits(int maxRecordBytes, long maxBatchBytes) {
    static final Limits DEFAULT =
        new Limits(
            BoundedBatchReader.DEFAULT_MAX_RECORD_BYTES,
            BoundedBatchReader.DEFAULT_MAX_BATCH_BYTES);
  }

  private final PartitionLog partitionLog;
  private final TopicPartition topicPartition;
  private final CoordinatorShard shard;
  private long replayed;
  private long skipped;

  private ShardLoader(PartitionLog partitionLog, CoordinatorShard shard) {
    this.partitionLog = partitionLog;
    this.topicPartition = partitionLog.topicPartition();
    this.shard = shard;
  }

  /**
   * @param bufferBytes how much of the log to read at a time ({@code offsets.load.buffer.size}); a
   *     batch larger than this is still read whole
   */
  static Result load(
      PartitionLog partitionLog, CoordinatorShard shard, int bufferBytes, Limits limits) {
    ShardLoader loader = new ShardLoader(partitionLog, shard);
    try (BoundedBatchReader reader =
        new BoundedBatchReader(limits.maxRecordBytes(), limits.maxBatchBytes())) {
      loader.run(bufferBytes, reader);
    }
    return new Result(loader.replayed, loader.skipped);
  }

  private void run(int bufferBytes, BoundedBatchReader reader) {
    long offset = partitionLog.logStartOffset();
    long end = partitionLog.logEndOffset();
    while (offset < end) {
      LogReadResult read = partitionLog.read(offset, bufferBytes, end, true);
      MemoryRecords records = read.slice().copyToMemory();
      long next = offset;
      for (MutableRecordBatch batch : records.batches()) {
        if (batch.lastOffset() >= end) {
          break;
        }
        if (batch.isControlBatch()) {
          replayMarker(batch, reader);
        } else {
          // Only a transactional batch's records wait for a marker; any other batch applies now.
          long producerId =
              batch.isTransactional() ? batch.producerId() : RecordBatch.NO_PRODUCER_ID;
          short producerEpoch = batch.producerEpoch();
          checkOutcome(
              batch, reader.read(batch, record -> replay(record, producerId, producerEpoch)));
        }
        next = batch.nextOffset();
      }
      if (next == offset) {
        break;
      }
      offset = next;
    }
  }

  private void checkOutcome(RecordBatch batch, BoundedBatchReader.Outcome outcome) {
    if (outcome.oversized() > 0) {
      skipped += outcome.oversized();
      log.warn(
          "Skipping coordinator records over the size cap topicPartition={} batchOffsets={}-{}"
              + " records={}",
          topicPartition,
          batch.baseOffset(),
          batch.lastOffset(),
          outcome.oversized());
    }
    if (outcome.cut() != null) {
      skipped++;
      log.warn(
          "Skipping the rest of a coordinator batch topicPartition={} batchOffsets={}-{}"
              + " reason={} recordsReadBefore={} error={}",
          topicPartition,
          batch.baseOffset(),
          batch.lastOffset(),
          outcome.cut(),
          outcome.delivered(),
          outcome.failure() == null ? "" : outcome.failure().toString());
    }
  }

  /**
   * Replays a COMMIT or ABORT marker in log order, so the shard completes the producer's pending
   * records exactly as it did when the marker was written. Other control records are skipped.
   */
  private void replayMarker(RecordBatch batch, BoundedBatchReader reader) {
    ControlRecordType[] type = {null};
    long[] offset = {batch.baseOffset()};
    checkOutcome(
        batch,
        reader.read(
            batch,
            record -> {
              if (type[0] == null) {
                offset[0] = record.offset();
                try {
                  type[0] = ControlRecordType.parse(record.key());
                } catch (RuntimeException e) {
                  type[0] = ControlRecordType.UNKNOWN;
                  skip("an unreadable control record", record.offset(), e);
                }
              }
            }));
    if (type[0] == ControlRecordType.COMMIT || type[0] == ControlRecordType.ABORT) {
      TransactionResult result =
          type[0] == ControlRecordType.COMMIT ? TransactionResult.COMMIT : TransactionResult.ABORT;
      try {
        shard.replayEndTransactionMarker(batch.producerId(), batch.producerEpoch(), result);
      } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
        skip("a transaction marker its shard could not apply", offset[0], e);
      }
    }
  }

  /**
   * Applies one record. A record that does not parse or that the shard cannot apply is skipped,
   * whatever the reader threw: a reader's stack or heap exhausted by one record's bytes is that
   * record's fault, not the shard's.
   */
  private void replay(Record record, long producerId, short producerEpoch) {
    try {
      ByteBuffer value = record.hasValue() ? record.value() : null;
      CoordinatorRecord coordinatorRecord = CoordinatorRecord.fromKafkaRecord(record.key(), value);
      if (producerId == RecordBatch.NO_PRODUCER_ID) {
        shard.replay(coordinatorRecord, record.offset());
      } else {
        shard.replay(coordinatorRecord, record.offset(), producerId, producerEpoch);
      }
      replayed++;
    } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
      skip("an unreadable coordinator record", record.offset(), e);
    }
  }

  private void skip(String what, long offset, Throwable e) {
    skipped++;
    log.warn("Skipping {} topicPartition={} offset={}", what, topicPartition, offset, e);
  }
}
