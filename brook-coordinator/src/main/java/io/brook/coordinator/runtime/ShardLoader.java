package io.brook.coordinator.runtime;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.log.CoordinatorLog;
import io.brook.coordinator.log.CoordinatorLogReader;
import io.brook.storage.StorageException;
import io.brook.storage.record.RecordLimits;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
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
 * <p>Batches are read through the log's {@link CoordinatorLogReader} (over storage's bounded record
 * reader in the broker), one read buffer at a time, within the partition's {@link
 * CoordinatorLog#recordLimits()}, the bounds its appends were validated against: a compressed batch
 * is never inflated whole, no length field decides an allocation, and a batch stops being read once
 * it inflates past the limit.
 *
 * <p>Whatever the partition holds, loading goes on: a record that does not parse or that its shard
 * cannot apply is skipped alone; at a record the reader refuses (over the size limit, malformed) or
 * a batch that does not decompress or inflates past the limit, the rest of that batch is skipped,
 * since nothing after a broken length can be trusted. Each is logged with its partition and offset.
 * Only an error outside one record's replay (the log cannot be read, an Error other than a shard's
 * stack or heap exhaustion) stops it.
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

  private final TopicPartition topicPartition;
  private final CoordinatorShard shard;
  private long replayed;
  private long skipped;

  private ShardLoader(TopicPartition topicPartition, CoordinatorShard shard) {
    this.topicPartition = topicPartition;
    this.shard = shard;
  }

  /**
   * Loads within the partition's own record limits, read afresh so a changed {@code
   * max.message.bytes} applies to the next load.
   *
   * @param bufferBytes how much of the log to read at a time ({@code offsets.load.buffer.size}); a
   *     batch larger than this is still read whole
   */
  static Result load(CoordinatorLog partitionLog, CoordinatorShard shard, int bufferBytes) {
    return load(partitionLog, shard, bufferBytes, partitionLog.recordLimits());
  }

  /** Loads within {@code limits}; for tests that need caps below what an append accepts. */
  static Result load(
      CoordinatorLog partitionLog, CoordinatorShard shard, int bufferBytes, RecordLimits limits) {
    ShardLoader loader = new ShardLoader(partitionLog.topicPartition(), shard);
    try (CoordinatorLogReader reader =
        partitionLog.read(
            partitionLog.logStartOffset(), partitionLog.logEndOffset(), bufferBytes, limits)) {
      loader.run(reader);
    }
    return new Result(loader.replayed, loader.skipped);
  }

  private void run(CoordinatorLogReader reader) {
    while (reader.nextBatch()) {
      if (reader.isControl()) {
        replayMarker(reader);
      } else {
        replayBatch(reader);
      }
    }
  }

  /**
   * Applies the records of a data batch. Only a transactional batch's records wait for a marker;
   * any other batch applies now.
   */
  private void replayBatch(CoordinatorLogReader reader) {
    long producerId =
        reader.isTransactional() ? reader.producerId() : CoordinatorLog.NO_PRODUCER_ID;
    short producerEpoch = reader.producerEpoch();
    try {
      while (reader.nextRecord()) {
        replay(reader, producerId, producerEpoch);
      }
    } catch (StorageException e) {
      skipped++;
      log.warn(
          "Skipping the rest of a coordinator batch topicPartition={} batchOffsets={}-{}"
              + " recordsReadBefore={} error={}",
          topicPartition,
          reader.baseOffset(),
          reader.lastOffset(),
          reader.recordsRead(),
          e.getMessage());
    }
  }

  /**
   * Replays a COMMIT or ABORT marker in log order, so the shard completes the producer's pending
   * records exactly as it did when the marker was written. Other control records are skipped.
   */
  private void replayMarker(CoordinatorLogReader reader) {
    Optional<TxnResult> marker;
    try {
      marker = reader.marker();
    } catch (StorageException e) {
      skip("an unreadable control batch", reader.baseOffset(), e);
      return;
    }
    if (marker.isEmpty()) {
      return;
    }
    try {
      shard.replayEndTransactionMarker(reader.producerId(), reader.producerEpoch(), marker.get());
    } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
      skip("a transaction marker its shard could not apply", reader.baseOffset(), e);
    }
  }

  /**
   * Applies the reader's current record. A record that does not parse or that the shard cannot
   * apply is skipped, whatever the shard threw: a stack or heap exhausted by one record's bytes is
   * that record's fault, not the shard's.
   */
  private void replay(CoordinatorLogReader reader, long producerId, short producerEpoch) {
    long offset = reader.offset();
    try {
      CoordinatorRecord coordinatorRecord =
          CoordinatorRecord.fromKafkaRecord(reader.key(), reader.value());
      if (producerId == CoordinatorLog.NO_PRODUCER_ID) {
        shard.replay(coordinatorRecord, offset);
      } else {
        shard.replay(coordinatorRecord, offset, producerId, producerEpoch);
      }
      replayed++;
    } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
      skip("an unreadable coordinator record", offset, e);
    }
  }

  private void skip(String what, long offset, Throwable e) {
    skipped++;
    log.warn("Skipping {} topicPartition={} offset={}", what, topicPartition, offset, e);
  }
}
