package io.brook.storage.producer;

import io.brook.storage.txn.CompletedTxn;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Transactions (KIP-98) across a partition's producers: a transactional data batch opens its
 * producer's transaction at its base offset, a COMMIT or ABORT marker completes it, and the
 * transactions that are open, or completed with their marker not yet below the high watermark, hold
 * the last stable offset back ({@link UnstableOffsets}). What a client may write in a transaction,
 * and which coordinator may end one, is in {@link TransactionRules}.
 *
 * <p>Each producer's open transaction and the coordinator epoch of its last marker are kept in its
 * {@link ProducerStateEntry} (and so in snapshots); the unstable offsets are derived from the
 * entries and rebuilt whenever those are reloaded. Mutated by the log's writer only; the queries
 * are safe from any thread.
 */
final class ProducerTransactions {
  private final UnstableOffsets unstable = new UnstableOffsets();
  private volatile long highWatermark;

  /**
   * The transaction a data batch leaves its producer in: the open one ({@code txnFirstOffset}), or
   * one opened at the batch if it is transactional and none was open.
   */
  static long txnFirstOffsetAfter(RecordBatch dataBatch, long txnFirstOffset) {
    if (dataBatch.isTransactional() && txnFirstOffset == ProducerStateEntry.NO_TXN) {
      return dataBatch.baseOffset();
    }
    return txnFirstOffset;
  }

  /**
   * The transaction a marker completes: the producer's open one, or (as Kafka) one at the marker's
   * own offset if none is open. Its last stable offset is stamped when the append is applied.
   */
  static CompletedTxn completedBy(
      RecordBatch markerBatch, EndTransactionMarker marker, long txnFirstOffset) {
    long firstOffset =
        txnFirstOffset == ProducerStateEntry.NO_TXN ? markerBatch.baseOffset() : txnFirstOffset;
    boolean aborted = marker.controlType() == ControlRecordType.ABORT;
    return new CompletedTxn(
        markerBatch.producerId(), firstOffset, markerBatch.lastOffset(), aborted, -1);
  }

  /**
   * Applies one append before its entries are published: see {@link UnstableOffsets#apply} ({@code
   * completed} gets its last stable offsets in place).
   */
  void apply(
      Map<Long, ProducerStateEntry> updated,
      Map<Long, ProducerStateEntry> previous,
      List<CompletedTxn> completed) {
    unstable.apply(updated, previous, completed, highWatermark);
  }

  /** The log's high watermark moved: completed transactions below it stop holding the LSO. */
  void onHighWatermarkUpdated(long newHighWatermark) {
    highWatermark = newHighWatermark;
    unstable.onHighWatermarkUpdated(newHighWatermark);
  }

  OptionalLong firstUnstableOffset() {
    return unstable.firstUnstableOffset();
  }

  OptionalLong firstOngoingOffset() {
    return unstable.firstOngoingOffset();
  }

  /** The entries were reloaded: re-opens the transactions they have open. */
  void rebuild(Collection<ProducerStateEntry> entries) {
    unstable.rebuild(entries);
  }

  void clear() {
    unstable.clear();
  }
}
