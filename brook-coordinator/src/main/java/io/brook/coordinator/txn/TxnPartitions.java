package io.brook.coordinator.txn;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * AddPartitionsToTxn and AddOffsetsToTxn (which adds the group's {@code __consumer_offsets}
 * partition): the partitions a transaction writes to, so its markers reach each of them. The first
 * partition opens the transaction and starts its timeout. Also the verify-only form brokers use
 * (KIP-890) to check a partition is part of the transaction.
 */
final class TxnPartitions {
  private final TxnStore store;

  /** The longest an addition is held while the previous transaction ends; 0: never held. */
  private final long holdMs;

  /**
   * Additions that arrived while their id's previous write (an earlier addition, or the end of the
   * last transaction) was not yet committed, merged per id: written together once it is.
   */
  private final Map<String, WaitingAdd> waiting = new HashMap<>();

  /**
   * Additions of a V2 producer's next transaction that arrived while its previous transaction is
   * still ending (prepared, its markers being written), merged per id: written together with that
   * transaction's Complete* ({@link #writeEnd}), or answered CONCURRENT_TRANSACTIONS after {@link
   * #holdMs}. One entry per id at most.
   */
  private final Map<String, WaitingAdd> held = new HashMap<>();

  private static final class WaitingAdd {
    final long producerId;
    final short producerEpoch;
    final boolean v2;
    final Set<TopicPartition> partitions = new HashSet<>();
    final CompletableFuture<Errors> answer = new CompletableFuture<>();

    WaitingAdd(long producerId, short producerEpoch, boolean v2) {
      this.producerId = producerId;
      this.producerEpoch = producerEpoch;
      this.v2 = v2;
    }

    boolean sameAs(long otherProducerId, short otherEpoch, boolean otherV2) {
      return producerId == otherProducerId && producerEpoch == otherEpoch && v2 == otherV2;
    }
  }

  TxnPartitions(TxnStore store, long holdMs) {
    this.store = store;
    this.holdMs = holdMs;
  }

  /**
   * @param v2 the add is a leader's implicit one (a transaction protocol V2 producer's first write
   *     to a partition, or its TxnOffsetCommit)
   */
  CompletableFuture<Errors> add(
      String transactionalId,
      long producerId,
      short producerEpoch,
      Set<TopicPartition> added,
      boolean v2) {
    CompletableFuture<Errors> afterWrite =
        maybeWaitForWrite(transactionalId, producerId, producerEpoch, added, v2);
    if (afterWrite != null) {
      return afterWrite;
    }
    CompletableFuture<Errors> afterEnd =
        maybeHoldUntilEnded(transactionalId, producerId, producerEpoch, added, v2);
    return afterEnd != null
        ? afterEnd
        : addNow(transactionalId, producerId, producerEpoch, added, v2);
  }

  /**
   * A leader's addition for a V2 producer's next transaction (the producer id and epoch its
   * previous one ends with) that arrives while that previous transaction is prepared waits for the
   * markers, up to {@link #holdMs}, instead of answering CONCURRENT_TRANSACTIONS at once: the
   * producer starts its next transaction as soon as EndTxn answers, and a leader told to ask again
   * would learn of the end only at its next ask, {@code add.partitions.to.txn.retry.backoff.ms}
   * later, or hand the error to the producer, whose own backoff is longer still. Held for at most
   * the leader's backoff, so a held request never delays the other transactions the leader asks
   * about in the same request by more than asking again would. Null when the addition is to be
   * answered now.
   */
  private CompletableFuture<Errors> maybeHoldUntilEnded(
      String transactionalId,
      long producerId,
      short producerEpoch,
      Set<TopicPartition> added,
      boolean v2) {
    if (!v2 || holdMs <= 0) {
      return null;
    }
    TxnMetadata ending = store.get(transactionalId).orElse(null);
    if (ending == null
        || !ending.state().isPrepare()
        || ending.clientTransactionVersion() != TxnMetadata.TV2
        || ending.producerIdAfterEnd() != producerId
        || ending.producerEpochAfterEnd() != producerEpoch) {
      return null;
    }
    WaitingAdd queued = held.get(transactionalId);
    if (queued == null) {
      WaitingAdd fresh = new WaitingAdd(producerId, producerEpoch, v2);
      held.put(transactionalId, fresh);
      store
          .context()
          .timer()
          .schedule(holdTimer(transactionalId), holdMs, () -> stopHolding(transactionalId, fresh));
      queued = fresh;
    } else if (!queued.sameAs(producerId, producerEpoch, v2)) {
      return null;
    }
    queued.partitions.addAll(added);
    return queued.answer;
  }

  private static String holdTimer(String transactionalId) {
    return "txn-held-add-" + transactionalId;
  }

  /** The previous transaction did not end in time: the leader asks again. */
  private void stopHolding(String transactionalId, WaitingAdd expired) {
    if (held.get(transactionalId) == expired) {
      held.remove(transactionalId);
      expired.answer.complete(Errors.CONCURRENT_TRANSACTIONS);
    }
  }

  /**
   * Writes the Complete* state of a transaction whose markers are all written, with the additions
   * held for the producer's next transaction in the same write (its record follows the Complete*
   * one, as if they were added right after it), and answers those once the write commits.
   *
   * @return completes once committed, as {@link TxnStore#persist}
   */
  CompletableFuture<Void> writeEnd(TxnMetadata completed) {
    String id = completed.transactionalId();
    WaitingAdd next = held.get(id);
    if (next == null
        || next.producerId != completed.producerId()
        || next.producerEpoch != completed.producerEpoch()) {
      return store.persist(completed);
    }
    held.remove(id);
    store.context().timer().cancel(holdTimer(id));
    TxnMetadata opened = completed.addPartitions(next.partitions, next.v2, store.context().nowMs());
    CompletableFuture<Void> written = store.persistAll(List.of(completed, opened));
    written.whenComplete(
        (ignored, failure) ->
            next.answer.complete(
                failure == null ? Errors.NONE : Errors.forException(TxnStore.unwrap(failure))));
    return written;
  }

  /** The shard is unloaded: held additions are answered, the leaders find the next coordinator. */
  void onUnloaded() {
    List<WaitingAdd> unloaded = List.copyOf(held.values());
    held.clear();
    unloaded.forEach(w -> w.answer.complete(Errors.NOT_COORDINATOR));
  }

  /**
   * An addition arriving while the id's previous write is not committed waits for that write
   * instead of answering CONCURRENT_TRANSACTIONS, when that write leaves the transaction open to it
   * (an addition of other partitions, or the Complete* that ends the previous transaction of a V2
   * producer, whose epoch is already the new one): with transaction protocol V2 every leader a new
   * transaction writes to asks at once, and one retry round per leader would add up. Those waiting
   * are merged into one write. Null when the addition is to be answered now.
   */
  private CompletableFuture<Errors> maybeWaitForWrite(
      String transactionalId,
      long producerId,
      short producerEpoch,
      Set<TopicPartition> added,
      boolean v2) {
    if (!store.isPending(transactionalId)) {
      return null;
    }
    TxnMetadata replayed = store.get(transactionalId).orElse(null);
    if (replayed == null
        || replayed.producerId() != producerId
        || replayed.producerEpoch() != producerEpoch
        || replayed.state().isPrepare()
        || replayed.state() == TransactionState.DEAD
        || replayed.state() == TransactionState.PREPARE_EPOCH_FENCE) {
      return null;
    }
    WaitingAdd queued = waiting.get(transactionalId);
    if (queued == null) {
      WaitingAdd fresh = new WaitingAdd(producerId, producerEpoch, v2);
      if (!store.afterWrite(transactionalId, () -> addWaiting(transactionalId))) {
        return null;
      }
      waiting.put(transactionalId, fresh);
      queued = fresh;
    } else if (!queued.sameAs(producerId, producerEpoch, v2)) {
      return null;
    }
    queued.partitions.addAll(added);
    return queued.answer;
  }

  /** The write the merged additions waited for is over: they are written, or answered, now. */
  private void addWaiting(String transactionalId) {
    WaitingAdd queued = waiting.remove(transactionalId);
    if (queued == null) {
      return;
    }
    addNow(transactionalId, queued.producerId, queued.producerEpoch, queued.partitions, queued.v2)
        .whenComplete(
            (error, failure) ->
                queued.answer.complete(
                    failure == null ? error : Errors.forException(TxnStore.unwrap(failure))));
  }

  private CompletableFuture<Errors> addNow(
      String transactionalId,
      long producerId,
      short producerEpoch,
      Set<TopicPartition> added,
      boolean v2) {
    Errors invalid = validate(transactionalId, producerId, producerEpoch);
    if (invalid != Errors.NONE) {
      return CompletableFuture.completedFuture(invalid);
    }
    TxnMetadata txn = store.get(transactionalId).orElseThrow();
    if (txn.state() == TransactionState.ONGOING && txn.partitions().containsAll(added)) {
      return CompletableFuture.completedFuture(Errors.NONE);
    }
    return store
        .persist(txn.addPartitions(added, v2, store.context().nowMs()))
        .handle(
            (ignored, failure) ->
                failure == null ? Errors.NONE : Errors.forException(TxnStore.unwrap(failure)));
  }

  /**
   * Per partition: NONE if it is part of the open transaction, TRANSACTION_ABORTABLE otherwise (as
   * Kafka 4 answers: the producer aborts; the broker tells older producers INVALID_TXN_STATE).
   * Answered from the committed state, so a write in progress (the producer adding other
   * partitions, or ending the transaction) does not make the broker retry: partitions whose
   * addition is not yet durable are not part of the transaction, and a marker written after the
   * answer stops the append itself (the partition's verification guard).
   */
  Map<TopicPartition, Errors> verify(
      String transactionalId, long producerId, short producerEpoch, Set<TopicPartition> asked) {
    Optional<TxnMetadata> committed = store.committed(transactionalId);
    Errors invalid = Errors.NONE;
    if (committed.isEmpty() || committed.get().producerId() != producerId) {
      invalid = Errors.INVALID_PRODUCER_ID_MAPPING;
    } else if (committed.get().producerEpoch() != producerEpoch) {
      invalid = Errors.PRODUCER_FENCED;
    } else if (committed.get().state().isPrepare()) {
      invalid = Errors.CONCURRENT_TRANSACTIONS;
    }
    Set<TopicPartition> inTxn = invalid == Errors.NONE ? committed.get().partitions() : Set.of();
    Map<TopicPartition, Errors> errors = new HashMap<>();
    for (TopicPartition tp : asked) {
      errors.put(
          tp,
          invalid != Errors.NONE
              ? invalid
              : inTxn.contains(tp) ? Errors.NONE : Errors.TRANSACTION_ABORTABLE);
    }
    return errors;
  }

  private Errors validate(String transactionalId, long producerId, short producerEpoch) {
    Optional<TxnMetadata> found = store.get(transactionalId);
    if (found.isEmpty() || found.get().producerId() != producerId) {
      return Errors.INVALID_PRODUCER_ID_MAPPING;
    }
    TxnMetadata txn = found.get();
    if (txn.producerEpoch() != producerEpoch) {
      return Errors.PRODUCER_FENCED;
    }
    if (store.isPending(transactionalId) || txn.state().isPrepare()) {
      return Errors.CONCURRENT_TRANSACTIONS;
    }
    if (txn.state() == TransactionState.DEAD
        || txn.state() == TransactionState.PREPARE_EPOCH_FENCE) {
      return Errors.UNKNOWN_SERVER_ERROR;
    }
    return Errors.NONE;
  }
}
