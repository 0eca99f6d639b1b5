package io.brook.storage.cleaner;

import io.brook.storage.txn.AbortedTxn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What the transactions of a log mean for one cleaning walk over its batches, in offset order, as
 * Kafka's cleaner decides it:
 *
 * <ul>
 *   <li>Data of an aborted transaction (a producer from the transaction's first offset, from the
 *       transaction index, until its next marker, as a read_committed consumer reads it) is never
 *       indexed and never kept, so an aborted value never shadows a committed one.
 *   <li>A marker stays while its transaction still has batches in the log, so that a read_committed
 *       consumer always finds the end of what it is skipping or reading. Once a pass meets a marker
 *       with no batch of its transaction before it, the marker may go: the pass stamps its batch
 *       with a delete horizon ({@code delete.retention.ms} from now, as for tombstones), and a pass
 *       after the horizon drops it. An abort's transaction index entry is kept exactly as long as
 *       the pass keeps the abort's data-bearing range: when its marker becomes removable the entry
 *       goes, so no consumer is ever told of an abort whose marker is gone (it would skip the
 *       producer's later, committed data).
 *   <li>Of a tiered log the walk sees only the local segments, while the remote copy may still hold
 *       data below them: an abort that began below the walk's start (its data may be remote, its
 *       marker here) counts as having data, so its marker and index entry stay for the
 *       read_committed consumers of the remote data (the remote compaction, whose walk starts at
 *       the remote log start, decides for the remote copy).
 * </ul>
 *
 * <p>Not thread-safe; one instance per walk.
 */
public final class TransactionWalk {
  /** The abort entries whose first offset the walk has not reached, by first offset. */
  private final ArrayDeque<AbortedTxn> pending;

  /** Producers inside an aborted transaction, with whether the walk met any of its batches. */
  private final Map<Long, OngoingAbort> inAbortedTxn = new HashMap<>();

  /** Producers whose open (not aborted) transaction has batches the walk met. */
  private final Set<Long> inCommittedTxn = new HashSet<>();

  /** Abort entries whose marker this walk keeps with its transaction's data, in walk order. */
  private final List<AbortedTxn> keptAborts = new ArrayList<>();

  /** Aborts that began below this offset may have data the walk does not see. */
  private final long unseenBelow;

  private static final class OngoingAbort {
    final AbortedTxn txn;
    boolean metBatch;

    OngoingAbort(AbortedTxn txn, boolean metBatch) {
      this.txn = txn;
      this.metBatch = metBatch;
    }
  }

  /** A walk over a whole log: nothing of it lies below the walk's first batch. */
  public TransactionWalk(List<AbortedTxn> aborts) {
    this(aborts, Long.MIN_VALUE);
  }

  /**
   * A walk that starts at {@code unseenBelow} over a log whose data below it may still exist
   * elsewhere (a tiered log's remote copy): aborts that began below it keep their markers.
   */
  public TransactionWalk(List<AbortedTxn> aborts, long unseenBelow) {
    this.unseenBelow = unseenBelow;
    List<AbortedTxn> sorted = new ArrayList<>(aborts);
    sorted.sort(Comparator.comparingLong(AbortedTxn::firstOffset));
    this.pending = new ArrayDeque<>(sorted);
  }

  /** Call for every data batch, in offset order; true for data of an aborted transaction. */
  public boolean onDataBatch(RecordBatch batch) {
    reach(batch.lastOffset());
    if (!batch.isTransactional()) {
      return false;
    }
    OngoingAbort abort = inAbortedTxn.get(batch.producerId());
    if (abort != null) {
      abort.metBatch = true;
      return true;
    }
    inCommittedTxn.add(batch.producerId());
    return false;
  }

  /**
   * Call for every control batch, in offset order: whether the marker may go once its delete
   * horizon passes (no batch of its transaction was met by this walk).
   */
  public boolean onMarker(RecordBatch batch) {
    reach(batch.lastOffset());
    long producerId = batch.producerId();
    OngoingAbort abort = inAbortedTxn.remove(producerId);
    if (abort != null) {
      if (abort.metBatch) {
        keptAborts.add(abort.txn);
        return false;
      }
      return true;
    }
    // A commit (or an already cleaned, empty control batch): removable once its data is gone.
    return !inCommittedTxn.remove(producerId);
  }

  /**
   * The abort entries of markers met since the last call whose transaction still had data here: the
   * cleaned segment holding those markers carries them in its transaction index.
   */
  public List<AbortedTxn> drainKeptAborts() {
    List<AbortedTxn> kept = List.copyOf(keptAborts);
    keptAborts.clear();
    return kept;
  }

  private void reach(long offset) {
    while (!pending.isEmpty() && pending.peekFirst().firstOffset() <= offset) {
      AbortedTxn txn = pending.pollFirst();
      inAbortedTxn.put(txn.producerId(), new OngoingAbort(txn, txn.firstOffset() < unseenBelow));
    }
  }
}
