package io.brook.storage.log;

import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.producer.ProducerStateManager;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.txn.CompletedTxn;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * The write half of {@link PartitionLog#appendAsLeader} and friends: putting batches into the
 * active segment, and the bookkeeping that follows (producer state, leader epochs). Called only
 * with the log's lock held.
 */
final class AppendWriter {
  private final LeaderEpochCache epochCache;
  private final ProducerStateManager producerState;
  private final LogHealth health;

  AppendWriter(LeaderEpochCache epochCache, ProducerStateManager producerState, LogHealth health) {
    this.epochCache = epochCache;
    this.producerState = producerState;
    this.health = health;
  }

  /**
   * Updates producer state (and, for replicated batches, leader epochs) from written batches, and
   * records the transactions their ABORT markers aborted in {@code segment}'s transaction index.
   */
  List<AppendedBatch> recordAppended(
      LogSegment segment,
      MemoryRecords records,
      AppendOrigin origin,
      ProducerStateManager.Append producers,
      BatchValidator.Summary summary) {
    List<AppendedBatch> appended = new ArrayList<>(summary.batchCount());
    long next = 0;
    for (MutableRecordBatch batch : records.batches()) {
      if (origin == AppendOrigin.REPLICATION) {
        maybeAssignEpoch(batch.partitionLeaderEpoch(), batch.baseOffset());
      }
      producers.record(batch);
      appended.add(AppendedBatch.of(batch));
      next = batch.nextOffset();
    }
    producers.commit();
    producerState.updateMapEndOffset(next);
    for (CompletedTxn txn : producers.completedTransactions()) {
      if (txn.aborted()) {
        indexAbort(segment, txn);
      }
    }
    return List.copyOf(appended);
  }

  private void indexAbort(LogSegment segment, CompletedTxn txn) {
    try {
      segment.txnIndex().append(txn.toAbortedTxn());
    } catch (IOException e) {
      throw health.markOffline("writing the transaction index of " + segment, e);
    }
  }

  void maybeAssignEpoch(int epoch, long startOffset) {
    if (epoch < 0 || epochCache.latestEpoch().orElse(-1) >= epoch) {
      return;
    }
    try {
      epochCache.assign(epoch, startOffset);
    } catch (IOException e) {
      throw health.markOffline("writing the leader-epoch checkpoint", e);
    }
  }

  /**
   * Writes already-stamped batches to the active segment; on any failure cuts what reached the file
   * and takes the partition offline.
   */
  void write(LogSegment segment, MemoryRecords records) {
    try {
      segment.append(records);
    } catch (IOException | RuntimeException | InternalError e) {
      // InternalError is how the JVM reports a fault writing an index mapping on a full disk.
      // Cut whatever part of the batch reached the file, so not even a later recovery sees it.
      try {
        segment.cutToSize();
      } catch (IOException | RuntimeException ignored) {
        // The disk is failing; recovery at the next start truncates the torn tail.
      }
      throw health.markOffline("appending to " + segment, e);
    }
  }
}
