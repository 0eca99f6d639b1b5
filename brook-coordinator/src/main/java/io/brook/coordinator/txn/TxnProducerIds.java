package io.brook.coordinator.txn;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId for a transactional id: a new id gets a producer id at epoch 0; a known one gets
 * its epoch bumped, which fences every older instance of the producer. An open transaction is
 * aborted first (the producer retries on CONCURRENT_TRANSACTIONS until its markers are written). A
 * producer passing its current id and epoch (KIP-360) recovers after the coordinator aborted its
 * transaction.
 */
final class TxnProducerIds {
  private final TxnStore store;
  private final TxnEnder ender;

  TxnProducerIds(TxnStore store, TxnEnder ender) {
    this.store = store;
    this.ender = ender;
  }

  /**
   * @param expectedProducerId the producer's current id (KIP-360), or -1
   * @param freshProducerId a producer id the caller allocated, used if one is needed
   */
  CompletableFuture<InitProducerIdResult> init(
      String transactionalId,
      int timeoutMs,
      long expectedProducerId,
      short expectedEpoch,
      OptionalLong freshProducerId) {
    if (store.isPending(transactionalId)) {
      return done(InitProducerIdResult.error(Errors.CONCURRENT_TRANSACTIONS));
    }
    long now = store.context().nowMs();
    Optional<TxnMetadata> found = store.get(transactionalId);
    if (found.isEmpty()) {
      if (freshProducerId.isEmpty()) {
        return done(InitProducerIdResult.needProducerId());
      }
      return write(TxnMetadata.fresh(transactionalId, freshProducerId.getAsLong(), timeoutMs, now));
    }
    TxnMetadata txn = found.get();
    if (expectedProducerId != -1 && !matches(txn, expectedProducerId, expectedEpoch)) {
      return done(InitProducerIdResult.error(Errors.PRODUCER_FENCED));
    }
    return switch (txn.state()) {
      case PREPARE_COMMIT, PREPARE_ABORT ->
          done(InitProducerIdResult.error(Errors.CONCURRENT_TRANSACTIONS));
      case ONGOING -> ender.fenceAndAbort(txn).handle((ignored, failure) -> abortStarted(failure));
      case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT ->
          bump(txn, timeoutMs, expectedProducerId, expectedEpoch, freshProducerId, now);
      case DEAD, PREPARE_EPOCH_FENCE ->
          done(InitProducerIdResult.error(Errors.UNKNOWN_SERVER_ERROR));
    };
  }

  private CompletableFuture<InitProducerIdResult> bump(
      TxnMetadata txn,
      int timeoutMs,
      long expectedProducerId,
      short expectedEpoch,
      OptionalLong freshProducerId,
      long now) {
    if (expectedProducerId != -1
        && expectedEpoch != txn.producerEpoch()
        && expectedEpoch == txn.lastProducerEpoch()) {
      // The bump this producer asks for already happened (its answer was lost, or the
      // coordinator bumped the epoch when it aborted the producer's transaction).
      return done(InitProducerIdResult.ok(txn.producerId(), txn.producerEpoch()));
    }
    if (txn.isEpochExhausted()) {
      if (freshProducerId.isEmpty()) {
        return done(InitProducerIdResult.needProducerId());
      }
      return write(txn.withProducerId(freshProducerId.getAsLong(), timeoutMs, now));
    }
    return write(txn.bumpEpoch(timeoutMs, now));
  }

  private static boolean matches(TxnMetadata txn, long producerId, short epoch) {
    return txn.producerId() == producerId
        && (epoch == txn.producerEpoch()
            || (epoch == txn.lastProducerEpoch() && epoch != TxnMetadata.NO_EPOCH));
  }

  private CompletableFuture<InitProducerIdResult> write(TxnMetadata next) {
    return store
        .persist(next)
        .handle(
            (ignored, failure) ->
                failure == null
                    ? InitProducerIdResult.ok(next.producerId(), next.producerEpoch())
                    : InitProducerIdResult.error(Errors.forException(TxnStore.unwrap(failure))));
  }

  /** The abort is under way: the producer retries until it completes, as with Kafka. */
  private static InitProducerIdResult abortStarted(Throwable failure) {
    return failure == null
        ? InitProducerIdResult.error(Errors.CONCURRENT_TRANSACTIONS)
        : InitProducerIdResult.error(Errors.forException(TxnStore.unwrap(failure)));
  }

  private static CompletableFuture<InitProducerIdResult> done(InitProducerIdResult result) {
    return CompletableFuture.completedFuture(result);
  }
}
