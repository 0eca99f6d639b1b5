package io.brook.storage.txn;

/**
 * One entry of a segment's transaction index ({@code .txnindex}): an aborted transaction, as Kafka
 * stores it.
 *
 * @param producerId the producer whose transaction was aborted
 * @param firstOffset the offset of the transaction's first batch
 * @param lastOffset the offset of the ABORT marker
 * @param lastStableOffset the last stable offset right after the marker was appended: every
 *     transaction aborted later started at or after it, which lets a search stop early
 */
public record AbortedTxn(
    long producerId, long firstOffset, long lastOffset, long lastStableOffset) {}
