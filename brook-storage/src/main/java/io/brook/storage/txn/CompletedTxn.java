package io.brook.storage.txn;

/**
 * A transaction closed by a COMMIT or ABORT marker.
 *
 * @param producerId the producer whose transaction it was
 * @param firstOffset the offset of its first batch (the marker's own offset when no batch of the
 *     transaction was in this partition)
 * @param lastOffset the offset of the marker
 * @param aborted whether the marker was ABORT
 * @param lastStableOffset the last stable offset right after the marker, ignoring the high
 *     watermark: the first offset of the oldest transaction still open then, or {@code lastOffset +
 *     1}. Stored in the transaction index, where it bounds the search for aborted transactions.
 */
public record CompletedTxn(
    long producerId, long firstOffset, long lastOffset, boolean aborted, long lastStableOffset) {

  /** The entry this transaction leaves in the transaction index, if it was aborted. */
  public AbortedTxn toAbortedTxn() {
    return new AbortedTxn(producerId, firstOffset, lastOffset, lastStableOffset);
  }
}
