package io.brook.coordinator.service;

import java.util.concurrent.CompletableFuture;

/**
 * Where the transaction coordinator hands the markers of an ended transaction. The broker
 * implements it (WriteTxnMarkers to the partitions' leaders); the coordinator never sees the
 * network.
 */
public interface TxnMarkerChannel extends AutoCloseable {
  /**
   * Writes {@code marker} to each of its partitions, retrying through leader changes.
   *
   * @return completes once every partition acknowledged the marker or was deleted; fails with the
   *     partition's {@link org.apache.kafka.common.protocol.Errors} as an {@link
   *     org.apache.kafka.common.errors.ApiException} if a partition refused it for good (this
   *     coordinator or the producer epoch was fenced), or with COORDINATOR_NOT_AVAILABLE when the
   *     queue is full or the channel closed. Cancelling the future stops the sending.
   */
  CompletableFuture<Void> send(TxnMarker marker);

  /** Stops sending; called by the coordinator that owns the channel, after its shards stopped. */
  @Override
  default void close() {}
}
