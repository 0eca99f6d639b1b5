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
   * Refuses a transactions V2 marker (KIP-890, {@code transactionVersion} 2 and above) whose epoch
   * is not above {@code knownEpoch}, the producer's epoch here, as Kafka does: the coordinator
   * bumps the epoch when a V2 transaction ends, so its marker always carries a newer epoch than the
   * transaction's batches. A marker at the known epoch is otherwise late or from a transaction this
   * partition never saw end, and writing it would merge two transactions under one epoch. The one
   * exception is the same marker written again (a coordinator that failed over, or lost the answer,
   * retries): same epoch and no transaction open here, accepted as Kafka accepts it. Older epochs
   * are refused for every version before this check.
   */
  static void checkMarkerEpoch(
      RecordBatch marker, short knownEpoch, ProducerStateEntry current, short transactionVersion) {
    if (transactionVersion < 2 || marker.producerEpoch() > knownEpoch) {
      return;
    }
    boolean retryOfCompleted =
        marker.producerEpoch() == knownEpoch
            && (current == null
                || current.currentTxnFirstOffsetOrNone() == ProducerStateEntry.NO_TXN);
    if (!retryOfCompleted) {
      throw new StorageException(
          StorageError.INVALID_PRODUCER_EPOCH,
          "Transaction marker of transaction version "
              + transactionVersion
              + " must carry an epoch above the producer's: producerId="
              + marker.producerId()
              + " epoch="
              + marker.producerEpoch()
              + " currentEpoch="
              + knownEpoch);
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
