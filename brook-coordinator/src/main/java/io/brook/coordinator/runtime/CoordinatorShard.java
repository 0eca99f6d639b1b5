package io.brook.coordinator.runtime;

import io.brook.coordinator.TxnResult;

/**
 * The in-memory state a coordinator keeps for one partition of its topic. Every method runs on the
 * shard's own thread, so a shard needs no locks.
 *
 * <p>State changes only by {@link #replay}: an operation computes records, the runtime appends them
 * to the partition and replays them, and loading replays the same records from the log, so a
 * coordinator that takes over rebuilds exactly the state its predecessor had.
 */
public interface CoordinatorShard {
  /**
   * Applies one record. Its key and value may be views of a buffer the loader reuses for the next
   * record: a shard decodes what it keeps, it does not hold on to them.
   *
   * @param offset the record's offset in the partition, or the offset it is about to get
   * @throws MalformedRecordException if the record cannot be decoded or applied; during loading
   *     such a record is logged and skipped
   */
  void replay(CoordinatorRecord record, long offset);

  /**
   * Applies one record written by a producer: transactional records take effect only once their
   * transaction's marker is replayed (see {@link #replayEndTransactionMarker}). The default treats
   * every record as non-transactional, right for coordinators whose topic never holds transactional
   * writes.
   *
   * @param producerId the producer of the record's batch if the batch is transactional, else {@link
   *     io.brook.coordinator.log.CoordinatorLog#NO_PRODUCER_ID}
   */
  default void replay(CoordinatorRecord record, long offset, long producerId, short producerEpoch) {
    replay(record, offset);
  }

  /**
   * Applies a transaction marker (a COMMIT or ABORT control record) of {@code producerId}, in log
   * order with the records. A marker without pending records is a no-op.
   */
  default void replayEndTransactionMarker(long producerId, short producerEpoch, TxnResult result) {}

  /** Every record in the log has been replayed; the shard now serves requests. */
  default void onLoaded() {}

  /**
   * The shard is being dropped (leadership moved or the broker stops): fail whatever waits, cancel
   * timers. The shard is never used again.
   */
  default void onUnloaded() {}

  /** This broker applied a new metadata image; called on the shard's thread, in order. */
  default void onMetadata(io.brook.metadata.image.MetadataImage image) {}

  /** A client connection closed (the broker tells the group coordinator by connection id). */
  default void onConnectionClosed(String connectionId) {}
}
