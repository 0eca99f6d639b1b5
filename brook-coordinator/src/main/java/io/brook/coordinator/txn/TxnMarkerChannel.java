package io.brook.coordinator.txn;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest.TxnMarkerEntry;

/** Where a shard hands the markers of an ended transaction; {@link TxnMarkerSender} in a broker. */
public interface TxnMarkerChannel {
  /**
   * Writes {@code marker} to each of its partitions, retrying through leader changes.
   *
   * @return completes once every partition acknowledged the marker or was deleted; fails if the
   *     markers cannot be written (this coordinator was fenced, the queue is full). Cancelling the
   *     future stops the sending.
   */
  CompletableFuture<Void> send(TxnMarkerEntry marker);
}
