package io.brook.coordinator.group;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.metadata.image.MetadataImage;

/**
 * The protocol-specific half of a shard: classic groups or consumer groups. Lives on the shard's
 * thread like the shard itself.
 */
public interface GroupTypeManager {
  /**
   * Applies a record if it is one of this manager's types.
   *
   * @return false if the record type belongs to someone else
   */
  boolean replay(CoordinatorRecord record, long offset);

  /** Loading finished: start timers for the members that were loaded. */
  default void onLoaded() {}

  /** The shard is dropped: fail waiting requests with NOT_COORDINATOR. */
  default void onUnloaded() {}

  /** This broker applied a new metadata image (topics or partitions may have changed). */
  default void onMetadata(MetadataImage image) {}

  /** A client connection closed. */
  default void onConnectionClosed(String connectionId) {}
}
