package io.brook.coordinator.txn;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.runtime.ShardContext;
import io.brook.coordinator.service.TxnMarker;
import io.brook.coordinator.service.TxnMarkerChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends transactions: EndTxn from the producer, or an abort the coordinator forces (timeout, a new
 * instance of the producer). The PrepareCommit/PrepareAbort state is written first, then the
 * markers are sent, and once every partition has its marker the CompleteCommit/CompleteAbort state
 * is written. A coordinator that loads a partition finds transactions in a prepare state and
 * resumes their markers, so an ended transaction is always completed.
 */
final class TxnEnder {
  private static final Logger log = LoggerFactory.getLogger(TxnEnder.class);
  static final long RETRY_BACKOFF_MS = 500;

  private final TxnStore store;
  private final ShardContext context;
  private final TxnMarkerChannel markers;
  private final TxnPartitions partitions;
  private final Map<String, CompletableFuture<Void>> sending = new HashMap<>();
  private int coordinatorEpoch;

  /**
   * @param partitions where additions for the producer's next transaction wait while this one ends;
   *     they are written with its Complete*
   */
  TxnEnder(TxnStore store, TxnMarkerChannel markers, TxnPartitions partitions) {
    this.store = store;
    this.context = store.context();
    this.markers = markers;
    this.partitions = partitions;
    // A prepare whose write failed but then turned out committed still needs its markers.
    store.onRecovered(
        txn -> {
          if (txn.state().isPrepare() && !sending.containsKey(txn.transactionalId())) {
            sendMarkers(txn);
          }
        });
  }

  /** The epoch markers carry: the leader epoch of this shard's partition. */
  void setCoordinatorEpoch(int coordinatorEpoch) {
    this.coordinatorEpoch = coordinatorEpoch;
  }

  /** EndTxn, with Kafka's answers for retried and mismatched requests. */
  CompletableFuture<Errors> endTxn(
      String transactionalId, long producerId, short producerEpoch, boolean commit) {
    Optional<TxnMetadata> found = store.get(transactionalId);
    if (found.isEmpty() || found.get().producerId() != producerId) {
      return done(Errors.INVALID_PRODUCER_ID_MAPPING);
    }
    TxnMetadata txn = found.get();
    if (txn.producerEpoch() != producerEpoch) {
      return done(Errors.PRODUCER_FENCED);
    }
    if (store.isPending(transactionalId)) {
      return done(Errors.CONCURRENT_TRANSACTIONS);
    }
    return switch (txn.state()) {
      case ONGOING ->
          prepare(txn.prepareEnd(commit, context.nowMs()))
              .thenApply(ignored -> Errors.NONE)
              .exceptionally(failure -> Errors.forException(TxnStore.unwrap(failure)));
      case COMPLETE_COMMIT -> done(commit ? Errors.NONE : Errors.INVALID_TXN_STATE);
      case COMPLETE_ABORT -> done(commit ? Errors.INVALID_TXN_STATE : Errors.NONE);
      case PREPARE_COMMIT ->
          done(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
      case PREPARE_ABORT ->
          done(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
      case EMPTY -> done(Errors.INVALID_TXN_STATE);
      case DEAD, PREPARE_EPOCH_FENCE -> done(Errors.UNKNOWN_SERVER_ERROR);
    };
  }

  /**
   * EndTxn of a transaction protocol V2 producer (EndTxn v5): the epoch is bumped as the
   * transaction is prepared ({@link TxnMetadata#prepareEndV2}) and the answer carries the producer
   * id and epoch to continue with. A retry from the epoch before the bump (or, after an epoch
   * overflow, from the previous producer id) gets Kafka's answers for retries: success with the
   * current id and epoch once the same outcome is complete, CONCURRENT_TRANSACTIONS while its
   * markers are written, INVALID_TXN_STATE for the other outcome.
   *
   * @param freshProducerId a producer id the caller allocated, used if the epoch is exhausted
   */
  CompletableFuture<EndTxnResult> endTxnV2(
      String transactionalId,
      long producerId,
      short producerEpoch,
      boolean commit,
      OptionalLong freshProducerId) {
    Optional<TxnMetadata> found = store.get(transactionalId);
    if (found.isEmpty()) {
      return doneV2(Errors.INVALID_PRODUCER_ID_MAPPING);
    }
    TxnMetadata txn = found.get();
    boolean retryAfterBump =
        txn.producerId() == producerId
            && txn.producerEpoch() != producerEpoch
            && txn.lastProducerEpoch() == producerEpoch
            && producerEpoch != TxnMetadata.NO_EPOCH;
    boolean retryAfterOverflow =
        txn.prevProducerId() == producerId
            && producerId != TxnMetadata.NO_PRODUCER_ID
            && txn.producerEpoch() == 0;
    if (txn.producerId() != producerId && !retryAfterOverflow) {
      return doneV2(Errors.INVALID_PRODUCER_ID_MAPPING);
    }
    if (txn.producerEpoch() != producerEpoch && !retryAfterBump && !retryAfterOverflow) {
      return doneV2(Errors.PRODUCER_FENCED);
    }
    if (store.isPending(transactionalId)) {
      return doneV2(Errors.CONCURRENT_TRANSACTIONS);
    }
    if (retryAfterBump || retryAfterOverflow) {
      return switch (txn.state()) {
        case COMPLETE_COMMIT -> commit ? okV2(txn) : doneV2(Errors.INVALID_TXN_STATE);
        case COMPLETE_ABORT -> commit ? doneV2(Errors.INVALID_TXN_STATE) : okV2(txn);
        case PREPARE_COMMIT ->
            doneV2(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
        case PREPARE_ABORT ->
            doneV2(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
        // The producer has moved on to a newer transaction: this request is a zombie's.
        case EMPTY, ONGOING -> doneV2(Errors.PRODUCER_FENCED);
        case DEAD, PREPARE_EPOCH_FENCE -> doneV2(Errors.UNKNOWN_SERVER_ERROR);
      };
    }
    boolean endable = txn.state() == TransactionState.ONGOING || (!commit && txn.state().isIdle());
    if (!endable) {
      return switch (txn.state()) {
        case PREPARE_COMMIT, PREPARE_ABORT -> doneV2(Errors.CONCURRENT_TRANSACTIONS);
        case DEAD, PREPARE_EPOCH_FENCE -> doneV2(Errors.UNKNOWN_SERVER_ERROR);
        default -> doneV2(Errors.INVALID_TXN_STATE);
      };
    }
    if (txn.isEpochExhausted() && freshProducerId.isEmpty()) {
      return CompletableFuture.completedFuture(EndTxnResult.needProducerId());
    }
    TxnMetadata prepared =
        txn.prepareEndV2(
            commit, freshProducerId.orElse(TxnMetadata.NO_PRODUCER_ID), context.nowMs());
    return prepare(prepared)
        .thenApply(
            ignored ->
                EndTxnResult.ok(prepared.producerIdAfterEnd(), prepared.producerEpochAfterEnd()))
        .exceptionally(
            failure -> EndTxnResult.error(Errors.forException(TxnStore.unwrap(failure))));
  }

  private static CompletableFuture<EndTxnResult> okV2(TxnMetadata txn) {
    return CompletableFuture.completedFuture(
        EndTxnResult.ok(txn.producerId(), txn.producerEpoch()));
  }

  private static CompletableFuture<EndTxnResult> doneV2(Errors error) {
    return CompletableFuture.completedFuture(EndTxnResult.error(error));
  }

  /**
   * Aborts an open transaction with a bumped epoch, fencing the producer instance that opened it.
   *
   * @return completes once PrepareAbort is written
   */
  CompletableFuture<Void> fenceAndAbort(TxnMetadata ongoing) {
    return prepare(ongoing.fenceAndAbort(context.nowMs()));
  }

  private CompletableFuture<Void> prepare(TxnMetadata prepared) {
    return store.persist(prepared).thenRun(() -> sendMarkers(prepared));
  }

  /** Resumes the markers of every transaction a loaded partition left in a prepare state. */
  void resumeAll() {
    for (TxnMetadata txn : new ArrayList<>(store.all())) {
      if (txn.state().isPrepare()) {
        sendMarkers(txn);
      }
    }
  }

  /** The shard is unloaded: stop sending; the next coordinator resumes from the log. */
  void cancelAll() {
    List<CompletableFuture<Void>> inFlight = new ArrayList<>(sending.values());
    sending.clear();
    inFlight.forEach(f -> f.cancel(false));
  }

  private void sendMarkers(TxnMetadata prepared) {
    String id = prepared.transactionalId();
    TxnResult result =
        prepared.state() == TransactionState.PREPARE_COMMIT ? TxnResult.COMMIT : TxnResult.ABORT;
    TxnMarker marker =
        new TxnMarker(
            prepared.producerId(),
            prepared.producerEpoch(),
            coordinatorEpoch,
            result,
            new ArrayList<>(prepared.partitions()),
            prepared.clientTransactionVersion());
    CompletableFuture<Void> sent = markers.send(marker);
    CompletableFuture<Void> previous = sending.put(id, sent);
    if (previous != null) {
      previous.cancel(false);
    }
    sent.whenCompleteAsync(
        (ignored, failure) -> {
          if (sending.get(id) != sent) {
            return; // superseded or cancelled
          }
          sending.remove(id);
          if (failure != null) {
            onMarkersFailed(prepared, TxnStore.unwrap(failure));
          } else {
            complete(prepared);
          }
        },
        context.executor());
  }

  private void onMarkersFailed(TxnMetadata prepared, Throwable failure) {
    if (failure instanceof CancellationException) {
      return;
    }
    if (!(failure instanceof CoordinatorNotAvailableException)) {
      // A newer coordinator or producer epoch refused the markers: this shard is stale, and the
      // transaction is completed by whoever loads the partition next.
      log.error(
          "Transaction markers refused, leaving the transaction to the next coordinator"
              + " transactionalId={} error={}",
          prepared.transactionalId(),
          failure.toString());
      return;
    }
    log.warn(
        "Sending transaction markers failed, retrying transactionalId={} error={}",
        prepared.transactionalId(),
        failure.toString());
    context
        .timer()
        .schedule(
            "txn-markers-" + prepared.transactionalId(),
            RETRY_BACKOFF_MS,
            () -> {
              if (isCurrent(prepared)) {
                sendMarkers(prepared);
              }
            });
  }

  /** Writes Complete* if the transaction is still the one whose markers were written. */
  private void complete(TxnMetadata prepared) {
    if (!isCurrent(prepared)) {
      return;
    }
    if (store.isPending(prepared.transactionalId())) {
      retryComplete(prepared);
      return;
    }
    partitions
        .writeEnd(store.get(prepared.transactionalId()).orElseThrow().complete(context.nowMs()))
        .exceptionally(
            failure -> {
              Throwable cause = TxnStore.unwrap(failure);
              log.warn(
                  "Writing the end of a transaction failed transactionalId={} error={}",
                  prepared.transactionalId(),
                  cause.toString());
              // Refused before it was replayed: try again. (Replayed, then failed: the store
              // writes it again itself, and the transaction is no longer in its prepare state.)
              if (!(cause instanceof NotCoordinatorException)) {
                retryComplete(prepared);
              }
              return null;
            });
  }

  private void retryComplete(TxnMetadata prepared) {
    context
        .timer()
        .schedule(
            "txn-complete-" + prepared.transactionalId(),
            RETRY_BACKOFF_MS,
            () -> complete(prepared));
  }

  private boolean isCurrent(TxnMetadata prepared) {
    return store
        .get(prepared.transactionalId())
        .filter(
            now ->
                now.producerId() == prepared.producerId()
                    && now.producerEpoch() == prepared.producerEpoch()
                    && now.state() == prepared.state())
        .isPresent();
  }

  private static CompletableFuture<Errors> done(Errors error) {
    return CompletableFuture.completedFuture(error);
  }
}
