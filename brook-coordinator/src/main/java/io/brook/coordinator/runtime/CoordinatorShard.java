package io.brook.coordinator.runtime;

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
   * Applies one record.
   *
   * @param offset the record's offset in the partition, or the offset it is about to get
   * @throws IllegalArgumentException if the record cannot be decoded; during loading such a record
   *     is logged and skipped
   */
  void replay(CoordinatorRecord record, long offset);

  /** Every record in the log has been replayed; the shard now serves requests. */
  default void onLoaded() {}

  /**
   * The shard is being dropped (leadership moved or the broker stops): fail whatever waits, cancel
   * timers. The shard is never used again.
   */
  default void onUnloaded() {}

  /** This broker applied a new metadata image; called on the shard's thread, in order. */
  default void onMetadata(io.brook.metadata.image.MetadataImage image) {}

  /** A client connection closed; see {@link io.brook.protocol.ConnectionListener}. */
  default void onConnectionClosed(String connectionId) {}
}
