package io.brook.coordinator.service;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Writes transaction markers to the partitions of a coordinator's own topic ({@code
 * __consumer_offsets}) through that coordinator, so that its in-memory state sees the marker in log
 * order: transactional offset commits become visible on COMMIT and are dropped on ABORT.
 *
 * <p>WriteTxnMarkers hands every marker for {@link #topic()} to this writer instead of appending it
 * to the partition itself.
 */
public interface CoordinatorMarkerWriter {
  /** The coordinator topic whose markers this writer takes. */
  String topic();

  /**
   * Appends the marker as a control batch to {@code partition} and applies it to the coordinator's
   * state.
   *
   * @param commit a COMMIT marker, else ABORT (WriteTxnMarkers' {@code transactionResult})
   * @return completes once the marker is committed (below the high watermark); fails with an {@link
   *     org.apache.kafka.common.errors.ApiException} (NOT_COORDINATOR when this broker does not
   *     lead the partition, COORDINATOR_LOAD_IN_PROGRESS while it loads, the storage error of a
   *     refused append), which WriteTxnMarkers maps to the partition's error code
   */
  CompletableFuture<Void> writeMarker(
      TopicPartition partition,
      long producerId,
      short producerEpoch,
      int coordinatorEpoch,
      boolean commit);
}
