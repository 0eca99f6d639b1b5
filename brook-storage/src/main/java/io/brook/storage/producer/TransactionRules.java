package io.brook.storage.producer;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.record.ControlBatches;
import java.util.Optional;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The transaction rules a client append must follow (KIP-98), and reading the COMMIT or ABORT
 * marker out of a control batch.
 */
final class TransactionRules {
  private TransactionRules() {}

  /**
   * The commit or abort marker of a control batch; empty for other control records.
   *
   * @throws StorageException {@link StorageError#CORRUPT_MESSAGE} if the batch has no record or the
   *     marker cannot be parsed
   */
  static Optional<EndTransactionMarker> of(RecordBatch batch) {
    return ControlBatches.marker(batch);
  }

  /**
   * Refuses a non-transactional batch from a producer whose transaction is open, as Kafka does: its
   * records would escape the transaction's commit or abort.
   */
  static void checkDataBatch(RecordBatch batch, ProducerStateEntry current) {
    if (!batch.isTransactional()
        && current != null
        && current.currentTxnFirstOffsetOrNone() != ProducerStateEntry.NO_TXN) {
      throw new StorageException(
          StorageError.INVALID_TXN_STATE,
          "Non-transactional batch from a producer with an open transaction: producerId="
              + batch.producerId()
              + " transactionFirstOffset="
              + current.currentTxnFirstOffsetOrNone());
    }
  }

  /**
   * Refuses a marker from a coordinator older than the last one that wrote a marker for this
   * producer here, as Kafka does: a coordinator that lost its role must not complete transactions.
   */
  static void checkCoordinatorEpoch(
      EndTransactionMarker marker, ProducerStateEntry current, long producerId) {
    if (current != null && marker.coordinatorEpoch() < current.coordinatorEpoch()) {
      throw new StorageException(
          StorageError.TRANSACTION_COORDINATOR_FENCED,
          "Transaction marker from a fenced coordinator: producerId="
              + producerId
              + " coordinatorEpoch="
              + marker.coordinatorEpoch()
              + " currentCoordinatorEpoch="
              + current.coordinatorEpoch());
    }
  }
}
