package io.brook.storage.cleaner;

import io.brook.storage.producer.BatchMetadata;
import io.brook.storage.producer.ProducerStateEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Which records and batches one cleaning pass keeps, handed to kafka-clients' {@code
 * MemoryRecords.filterTo}, which rewrites a batch only when it loses records (keeping its base
 * offset, compression, producer id, epoch and base sequence) and copies it untouched otherwise.
 *
 * <ul>
 *   <li>A record at or past {@code mapEndOffset} was not indexed this pass: kept.
 *   <li>A keyed record is kept only if no later offset of its key is in the map.
 *   <li>A tombstone (null value) that is the latest for its key is kept until its batch's delete
 *       horizon: filterTo stamps {@code currentTime + delete.retention.ms} into a batch the first
 *       time it keeps a tombstone in it (KIP-534), and a later pass after that time drops it.
 *   <li>A record without a key cannot be compacted; produce rejects them on compacted topics, so
 *       one found here predates the policy change and is dropped, as Kafka does.
 *   <li>Data of aborted transactions is dropped, and never indexed, so an aborted value never
 *       counts as the latest of its key (as Kafka). A transaction marker is kept while its
 *       transaction has batches in the log; after that its batch gets a delete horizon and a pass
 *       past the horizon drops it ({@link TransactionWalk}).
 *   <li>The last batch of every producer still in the producer state is kept, emptied if need be,
 *       so that its sequence number and epoch survive for duplicate detection and fencing.
 * </ul>
 */
public final class CompactionFilter extends RecordFilter {
  private final OffsetMap map;
  private final long mapEndOffset;
  private final Map<Long, Long> lastOffsetOfActiveProducer;
  private final TransactionWalk transactions;
  private boolean retainedTombstone;

  /** Whether the batch whose records are being filtered is data of an aborted transaction. */
  private boolean inAbortedBatch;

  public CompactionFilter(
      OffsetMap map,
      long mapEndOffset,
      long nowMs,
      long deleteRetentionMs,
      Map<Long, ProducerStateEntry> activeProducers,
      TransactionWalk transactions) {
    super(nowMs, deleteRetentionMs);
    this.map = map;
    this.transactions = transactions;
    this.mapEndOffset = mapEndOffset;
    this.lastOffsetOfActiveProducer = new HashMap<>();
    for (ProducerStateEntry entry : activeProducers.values()) {
      List<BatchMetadata> batches = entry.batches();
      if (!batches.isEmpty()) {
        lastOffsetOfActiveProducer.put(
            entry.producerId(), batches.get(batches.size() - 1).lastOffset());
      }
    }
  }

  @Override
  protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
    Long last = lastOffsetOfActiveProducer.get(batch.producerId());
    boolean producersLast =
        batch.hasProducerId() && last != null && last.longValue() == batch.lastOffset();
    boolean removableMarker = false;
    boolean drop;
    if (batch.isControlBatch()) {
      inAbortedBatch = false;
      removableMarker = transactions.onMarker(batch);
      OptionalLong horizon = batch.deleteHorizonMs();
      drop = removableMarker && horizon.isPresent() && horizon.getAsLong() <= currentTime;
      // A marker waiting for its horizon needs a later pass, as a kept tombstone does.
      retainedTombstone |= removableMarker && !drop;
    } else {
      inAbortedBatch = transactions.onDataBatch(batch);
      drop = inAbortedBatch;
    }
    BatchRetention retention =
        producersLast
            ? BatchRetention.RETAIN_EMPTY
            : drop ? BatchRetention.DELETE : BatchRetention.DELETE_EMPTY;
    // A removable marker kept now gets its delete horizon stamped by filterTo (KIP-534).
    return new BatchRetentionResult(retention, removableMarker);
  }

  @Override
  protected boolean shouldRetainRecord(
      RecordBatch batch, org.apache.kafka.common.record.internal.Record record) {
    if (inAbortedBatch) {
      return false;
    }
    if (batch.isControlBatch() || record.offset() >= mapEndOffset) {
      return true;
    }
    if (!record.hasKey()) {
      return false;
    }
    if (map.get(record.key()) > record.offset()) {
      return false;
    }
    if (record.hasValue()) {
      return true;
    }
    OptionalLong horizon = batch.deleteHorizonMs();
    boolean keep = horizon.isEmpty() || currentTime < horizon.getAsLong();
    retainedTombstone |= keep;
    return keep;
  }

  /**
   * For a batch the cleaner copies without {@code filterTo} (its records cannot be read within
   * bounds): whether it goes entirely (aborted transactional data). Consumes the batch in the
   * aborted-transaction walk, as {@code filterTo} would.
   */
  public boolean dropsWhole(RecordBatch batch) {
    return checkBatchRetention(batch).batchRetention == BatchRetention.DELETE;
  }

  /** Whether this pass kept a tombstone, so a later pass has one to remove. */
  public boolean retainedTombstone() {
    return retainedTombstone;
  }
}
