package io.brook.storage.cleaner;

import io.brook.storage.txn.AbortedTxn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Tells, batch by batch in log order, which batches hold data of an aborted transaction, the way a
 * read_committed consumer does: a producer is in an aborted transaction from the transaction's
 * first offset (from the transaction index) until its next marker. The cleaner neither indexes such
 * batches (an aborted value must never count as the latest of its key) nor keeps their records; the
 * remote compaction of tiered compacted topics walks remote batches the same way.
 *
 * <p>Not thread-safe; one instance per walk over the batches.
 */
public final class AbortedBatches {
  private final ArrayDeque<AbortedTxn> pending;
  private final Set<Long> inAbortedTxn = new HashSet<>();

  public AbortedBatches(List<AbortedTxn> aborts) {
    List<AbortedTxn> sorted = new ArrayList<>(aborts);
    sorted.sort(Comparator.comparingLong(AbortedTxn::firstOffset));
    this.pending = new ArrayDeque<>(sorted);
  }

  /** Call for every batch, in offset order; true for data of an aborted transaction. */
  public boolean isAborted(RecordBatch batch) {
    while (!pending.isEmpty() && pending.peekFirst().firstOffset() <= batch.lastOffset()) {
      inAbortedTxn.add(pending.pollFirst().producerId());
    }
    if (!batch.hasProducerId() || inAbortedTxn.isEmpty()) {
      return false;
    }
    if (batch.isControlBatch()) {
      // The producer's marker ends its transaction, whatever the outcome.
      inAbortedTxn.remove(batch.producerId());
      return false;
    }
    return batch.isTransactional() && inAbortedTxn.contains(batch.producerId());
  }
}
