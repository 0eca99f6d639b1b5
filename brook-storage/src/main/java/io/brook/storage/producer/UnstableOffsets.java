package io.brook.storage.producer;

import io.brook.storage.txn.CompletedTxn;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The transactions that hold the last stable offset back, ordered by first offset: the open ones,
 * and the completed ones whose marker is not yet below the high watermark (a marker that could
 * still be lost must not let read_committed consumers past the transaction's data, as in Kafka).
 *
 * <p>Derived state: rebuilt from the producer entries whenever they are reloaded, never persisted
 * itself (the snapshot keeps each producer's open transaction). Mutated by the log's writer and the
 * high watermark's updates; {@link #firstUnstableOffset()} reads a value recomputed after each
 * change, so it is one volatile read from any thread (every fetch reads the last stable offset of
 * every partition it reads, and a leader checks it for each idle partition of a follower's fetch:
 * two skip-list heads per partition were a sixth of an idle node's CPU at 24,000 partitions).
 */
final class UnstableOffsets {
  private static final long NONE = -1;

  /** First offset of an open transaction → its producer id. */
  private final ConcurrentSkipListMap<Long, Long> ongoing = new ConcurrentSkipListMap<>();

  /** First offset of a completed transaction → the offset of its marker. */
  private final ConcurrentSkipListMap<Long, Long> unreplicated = new ConcurrentSkipListMap<>();

  /** The first offset of {@link #firstUnstableOffset}, or {@link #NONE}; see {@link #refresh}. */
  private volatile long firstUnstable = NONE;

  /**
   * Applies one append's changes before its entries are published: closes the transactions its
   * markers completed, opens those its batches started, and stamps each completed transaction with
   * the last stable offset right after its marker (in place in {@code completed}).
   */
  void apply(
      Map<Long, ProducerStateEntry> updated,
      Map<Long, ProducerStateEntry> previous,
      List<CompletedTxn> completed,
      long highWatermark) {
    for (CompletedTxn txn : completed) {
      complete(txn, highWatermark);
    }
    for (Map.Entry<Long, ProducerStateEntry> e : updated.entrySet()) {
      long now = e.getValue().currentTxnFirstOffsetOrNone();
      if (now == ProducerStateEntry.NO_TXN) {
        continue; // idempotent producers: nothing more to look up
      }
      ProducerStateEntry before = previous.get(e.getKey());
      if (before == null || before.currentTxnFirstOffsetOrNone() != now) {
        ongoing.put(now, e.getKey());
      }
    }
    if (!completed.isEmpty()) {
      stampLastStableOffsets(completed);
    }
    refresh();
  }

  /**
   * The oldest transaction open right after a marker is either still open now, or completed later
   * in the same append; a transaction opened after the marker starts above it and does not count.
   */
  private void stampLastStableOffsets(List<CompletedTxn> completed) {
    long oldestOpenNow = firstOngoingOffset().orElse(Long.MAX_VALUE);
    long oldestClosedLater = Long.MAX_VALUE;
    for (int i = completed.size() - 1; i >= 0; i--) {
      CompletedTxn txn = completed.get(i);
      long lso = Math.min(txn.lastOffset() + 1, Math.min(oldestOpenNow, oldestClosedLater));
      completed.set(
          i,
          new CompletedTxn(
              txn.producerId(), txn.firstOffset(), txn.lastOffset(), txn.aborted(), lso));
      oldestClosedLater = Math.min(oldestClosedLater, txn.firstOffset());
    }
  }

  /** Moves a transaction from open to completed-but-unreplicated. */
  private void complete(CompletedTxn txn, long highWatermark) {
    ongoing.remove(txn.firstOffset());
    if (txn.lastOffset() >= highWatermark) {
      unreplicated.put(txn.firstOffset(), txn.lastOffset());
    }
  }

  /** Forgets the completed transactions whose marker is now below the high watermark. */
  void onHighWatermarkUpdated(long highWatermark) {
    if (unreplicated.isEmpty()) {
      return;
    }
    Iterator<Map.Entry<Long, Long>> it = unreplicated.entrySet().iterator();
    while (it.hasNext()) {
      if (it.next().getValue() < highWatermark) {
        it.remove();
      }
    }
    refresh();
  }

  /** The first offset of the oldest open transaction, if any. */
  OptionalLong firstOngoingOffset() {
    Map.Entry<Long, Long> first = ongoing.firstEntry();
    return first == null ? OptionalLong.empty() : OptionalLong.of(first.getKey());
  }

  /** The first offset of the oldest transaction that is open or whose marker is unreplicated. */
  OptionalLong firstUnstableOffset() {
    long first = firstUnstable;
    return first == NONE ? OptionalLong.empty() : OptionalLong.of(first);
  }

  /**
   * Recomputes the cached first unstable offset after a change. Serialised, and computed inside the
   * lock from the maps as they are then: the writer and a high watermark update may change the maps
   * at once, and whichever recomputes last sees both changes (a stale value written last would hold
   * the last stable offset back until the next change).
   */
  private synchronized void refresh() {
    Map.Entry<Long, Long> open = ongoing.firstEntry();
    Map.Entry<Long, Long> done = unreplicated.firstEntry();
    long first;
    if (open == null && done == null) {
      first = NONE;
    } else if (open == null) {
      first = done.getKey();
    } else {
      first = done == null ? open.getKey() : Math.min(open.getKey(), done.getKey());
    }
    firstUnstable = first;
  }

  /** Forgets everything and re-opens the transactions the entries have open. */
  void rebuild(Collection<ProducerStateEntry> entries) {
    ongoing.clear();
    unreplicated.clear();
    for (ProducerStateEntry entry : entries) {
      long first = entry.currentTxnFirstOffsetOrNone();
      if (first != ProducerStateEntry.NO_TXN) {
        ongoing.put(first, entry.producerId());
      }
    }
    refresh();
  }

  void clear() {
    ongoing.clear();
    unreplicated.clear();
    refresh();
  }
}
