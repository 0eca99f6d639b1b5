package io.brook.storage.producer;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Idempotence (KIP-98): the rules a producer's batch must follow against the producer's known epoch
 * and sequence window, and the window itself (its last {@value
 * ProducerStateManager#MAX_BATCHES_PER_PRODUCER} batches), so that the leader acknowledges a
 * retried batch with its original offsets instead of appending it again, rejects a sequence gap
 * ({@link StorageError#OUT_OF_ORDER_SEQUENCE_NUMBER}) and fences an older epoch ({@link
 * StorageError#INVALID_PRODUCER_EPOCH}). Stateless: the state is the producer's entry and what the
 * append validated so far.
 */
final class ProducerSequences {
  private ProducerSequences() {}

  /** What the next batch of a producer is checked against within one append. */
  record Validated(short epoch, int lastSeq) {}

  /**
   * Returns the cached original batch if {@code batch} (same producer id, epoch, first and last
   * sequence) is a retry of one of the producer's last batches; otherwise validates it against
   * {@code current} and the batches {@code validated} earlier in the same append, and remembers it
   * there for the next one.
   *
   * <ul>
   *   <li>an epoch older than the known one: {@link StorageError#INVALID_PRODUCER_EPOCH};
   *   <li>same epoch and a first sequence that does not follow the last one ({@code
   *       Integer.MAX_VALUE} is followed by 0; no batch known in this epoch is followed by 0), or a
   *       newer epoch whose first sequence is not 0: {@link
   *       StorageError#OUT_OF_ORDER_SEQUENCE_NUMBER};
   *   <li>a producer with no known state (never seen, or expired) accepts any sequence.
   * </ul>
   *
   * <p>A control batch (transaction marker) is only checked for a fenced epoch, and its marker by
   * the {@link TransactionRules} (for {@code markerTransactionVersion} 2 and above, the epoch must
   * be newer than the producer's: {@link TransactionRules#checkMarkerEpoch}); a data batch also by
   * {@link TransactionRules#checkDataBatch}. {@code batch} must have a producer id.
   */
  static Optional<BatchMetadata> check(
      RecordBatch batch,
      ProducerStateEntry current,
      Map<Long, Validated> validated,
      short markerTransactionVersion) {
    long producerId = batch.producerId();
    short epoch = batch.producerEpoch();
    Validated known = validated.get(producerId);
    if (known == null && current != null) {
      known = new Validated(current.producerEpoch(), current.lastSequence());
    }
    if (known != null && epoch < known.epoch()) {
      throw new StorageException(
          StorageError.INVALID_PRODUCER_EPOCH,
          "Producer epoch is older than the current one: producerId="
              + producerId
              + " epoch="
              + epoch
              + " currentEpoch="
              + known.epoch());
    }
    if (batch.isControlBatch()) {
      Optional<EndTransactionMarker> marker = TransactionRules.of(batch);
      if (marker.isPresent()) {
        if (known != null) {
          TransactionRules.checkMarkerEpoch(
              batch, known.epoch(), current, markerTransactionVersion);
        }
        TransactionRules.checkCoordinatorEpoch(marker.get(), current, producerId);
      }
      if (known == null || epoch > known.epoch()) {
        validated.put(producerId, new Validated(epoch, -1));
      }
      return Optional.empty();
    }
    TransactionRules.checkDataBatch(batch, current);
    int firstSeq = batch.baseSequence();
    int lastSeq = batch.lastSequence();
    if (firstSeq < 0) {
      throw outOfOrder(producerId, epoch, "a batch with a producer id has no sequence");
    }
    if (known != null) {
      if (epoch > known.epoch()) {
        if (firstSeq != 0) {
          throw outOfOrder(
              producerId,
              epoch,
              "a new epoch must start at sequence 0 but the batch starts at " + firstSeq);
        }
      } else {
        if (current != null) {
          Optional<BatchMetadata> duplicate = current.findDuplicate(epoch, firstSeq, lastSeq);
          if (duplicate.isPresent()) {
            return duplicate;
          }
        }
        if (firstSeq != nextSequence(known.lastSeq())) {
          throw outOfOrder(
              producerId,
              epoch,
              "expected sequence "
                  + nextSequence(known.lastSeq())
                  + " but the batch starts at "
                  + firstSeq);
        }
      }
    }
    validated.put(producerId, new Validated(epoch, lastSeq));
    return Optional.empty();
  }

  /**
   * The producer's window after a stored data batch: {@code window} (the batches of the same epoch;
   * empty after an epoch change) with the batch added and the oldest dropped beyond {@value
   * ProducerStateManager#MAX_BATCHES_PER_PRODUCER}.
   */
  static List<BatchMetadata> windowWith(List<BatchMetadata> window, RecordBatch batch) {
    List<BatchMetadata> kept = new ArrayList<>(ProducerStateManager.MAX_BATCHES_PER_PRODUCER);
    kept.addAll(window);
    if (kept.size() == ProducerStateManager.MAX_BATCHES_PER_PRODUCER) {
      kept.remove(0);
    }
    kept.add(
        new BatchMetadata(
            batch.baseSequence(),
            batch.lastSequence(),
            batch.baseOffset(),
            batch.lastOffset(),
            batch.maxTimestamp()));
    return kept;
  }

  /** The sequence after {@code lastSeq}; sequences wrap from {@code Integer.MAX_VALUE} to 0. */
  private static int nextSequence(int lastSeq) {
    return lastSeq == Integer.MAX_VALUE ? 0 : lastSeq + 1;
  }

  private static StorageException outOfOrder(long producerId, short epoch, String detail) {
    return new StorageException(
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER,
        "Out of order sequence number: producerId="
            + producerId
            + " epoch="
            + epoch
            + " "
            + detail);
  }
}
