package io.brook.coordinator.runtime;

import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.PartitionLog;
import java.nio.ByteBuffer;
import java.util.Iterator;
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
 */
final class ShardLoader {
  private static final Logger log = LoggerFactory.getLogger(ShardLoader.class);

  private ShardLoader() {}

  /**
   * @param bufferBytes how much of the log to read at a time ({@code offsets.load.buffer.size}); a
   *     batch larger than this is still read whole
   * @return the number of records replayed
   */
  static long load(PartitionLog partitionLog, CoordinatorShard shard, int bufferBytes) {
    long offset = partitionLog.logStartOffset();
    long end = partitionLog.logEndOffset();
    long replayed = 0;
    while (offset < end) {
      LogReadResult read = partitionLog.read(offset, bufferBytes, end, true);
      MemoryRecords records = read.slice().copyToMemory();
      long next = offset;
      for (MutableRecordBatch batch : records.batches()) {
        if (batch.lastOffset() >= end) {
          break;
        }
        if (batch.isControlBatch()) {
          replayMarker(shard, batch, partitionLog);
        } else {
          // Only a transactional batch's records wait for a marker; any other batch applies now.
          long producerId =
              batch.isTransactional() ? batch.producerId() : RecordBatch.NO_PRODUCER_ID;
          for (Record record : batch) {
            replayed +=
                replay(shard, record, producerId, batch.producerEpoch(), partitionLog) ? 1 : 0;
          }
        }
        next = batch.nextOffset();
      }
      if (next == offset) {
        break;
      }
      offset = next;
    }
    return replayed;
  }

  /**
   * Replays a COMMIT or ABORT marker in log order, so the shard completes the producer's pending
   * records exactly as it did when the marker was written. Other control records are skipped.
   */
  private static void replayMarker(
      CoordinatorShard shard, RecordBatch batch, PartitionLog partitionLog) {
    Iterator<Record> records = batch.iterator();
    if (!records.hasNext()) {
      return;
    }
    Record record = records.next();
    ControlRecordType type;
    try {
      type = ControlRecordType.parse(record.key());
    } catch (RuntimeException e) {
      log.warn(
          "Skipping an unreadable control record topicPartition={} offset={}",
          partitionLog.topicPartition(),
          record.offset(),
          e);
      return;
    }
    if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT) {
      shard.replayEndTransactionMarker(
          batch.producerId(),
          batch.producerEpoch(),
          type == ControlRecordType.COMMIT ? TransactionResult.COMMIT : TransactionResult.ABORT);
    }
  }

  private static boolean replay(
      CoordinatorShard shard,
      Record record,
      long producerId,
      short producerEpoch,
      PartitionLog partitionLog) {
    try {
      ByteBuffer value = record.hasValue() ? record.value() : null;
      CoordinatorRecord coordinatorRecord = CoordinatorRecord.fromKafkaRecord(record.key(), value);
      if (producerId == RecordBatch.NO_PRODUCER_ID) {
        shard.replay(coordinatorRecord, record.offset());
      } else {
        shard.replay(coordinatorRecord, record.offset(), producerId, producerEpoch);
      }
      return true;
    } catch (RuntimeException e) {
      log.warn(
          "Skipping an unreadable coordinator record topicPartition={} offset={}",
          partitionLog.topicPartition(),
          record.offset(),
          e);
      return false;
    }
  }
}
