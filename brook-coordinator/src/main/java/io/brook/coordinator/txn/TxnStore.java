package io.brook.coordinator.txn;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * The transactional ids of one {@code __transaction_state} partition, and their writes. A write is
 * replayed at once (the runtime applies records before they commit), so an id with a write not yet
 * committed is <em>pending</em>: Kafka's pending state, which makes other requests for the id
 * answer CONCURRENT_TRANSACTIONS instead of acting on state that is not yet durable.
 */
final class TxnStore {
  static final long RECONFIRM_BACKOFF_MS = 500;

  private final ShardContext context;
  private final Map<String, TxnMetadata> txns = new HashMap<>();
  private final Set<String> pending = new HashSet<>();

  /** The last committed state of each pending id (absent: none, a new id). */
  private final Map<String, TxnMetadata> beforePending = new HashMap<>();

  /** What runs once a pending id's write is over: at most one per id ({@link #afterWrite}). */
  private final Map<String, Runnable> afterWrite = new HashMap<>();

  private Consumer<TxnMetadata> onRecovered = txn -> {};
  private long reconfirmSequence;

  TxnStore(ShardContext context) {
    this.context = context;
  }

  ShardContext context() {
    return context;
  }

  Optional<TxnMetadata> get(String transactionalId) {
    return Optional.ofNullable(txns.get(transactionalId));
  }

  Collection<TxnMetadata> all() {
    return txns.values();
  }

  boolean isPending(String transactionalId) {
    return pending.contains(transactionalId);
  }

  /**
   * Runs {@code then} on the shard's thread once the pending write of {@code transactionalId} is
   * over: committed, or failed (then the id may still be pending, see {@link #reconfirm}). One
   * waiter per id: false, and nothing registered, when the id is not pending or one already waits.
   */
  boolean afterWrite(String transactionalId, Runnable then) {
    if (!pending.contains(transactionalId) || afterWrite.containsKey(transactionalId)) {
      return false;
    }
    afterWrite.put(transactionalId, then);
    return true;
  }

  private void runAfterWrite(String transactionalId) {
    Runnable then = afterWrite.remove(transactionalId);
    if (then != null) {
      then.run();
    }
  }

  /**
   * The id's state as far as it is committed: its state before the pending write, if one is
   * pending. What a broker's verification may rely on: a partition whose addition is not yet
   * durable is not in the transaction for it.
   */
  Optional<TxnMetadata> committed(String transactionalId) {
    return pending.contains(transactionalId)
        ? Optional.ofNullable(beforePending.get(transactionalId))
        : get(transactionalId);
  }

  /** Applies a record, deriving the epoch before the latest bump of the same producer id. */
  void replay(CoordinatorRecord record) {
    String id = TxnRecords.readKey(record);
    if (record.isTombstone()) {
      txns.remove(id);
      return;
    }
    TxnMetadata next = TxnRecords.readValue(id, record);
    TxnMetadata previous = txns.get(id);
    short last = TxnMetadata.NO_EPOCH;
    if (previous != null && previous.producerId() == next.producerId()) {
      last =
          previous.producerEpoch() != next.producerEpoch()
              ? previous.producerEpoch()
              : previous.lastProducerEpoch();
    }
    txns.put(id, next.withLastProducerEpoch(last));
  }

  /**
   * Writes {@code next} (replayed at once) and marks its id pending until the write commits.
   *
   * @return completes on the shard's thread once committed; fails with the coordinator error
   */
  CompletableFuture<Void> persist(TxnMetadata next) {
    return persistAll(List.of(next));
  }

  /** {@link #persist} for several states in one batch, in order (of several ids, or of one). */
  CompletableFuture<Void> persistAll(List<TxnMetadata> next) {
    List<CoordinatorRecord> records = new ArrayList<>();
    // One id may be written twice in a batch: a transaction's end, then the next one's start.
    Set<String> distinct = new LinkedHashSet<>();
    for (TxnMetadata metadata : next) {
      records.add(TxnRecords.record(metadata));
      distinct.add(metadata.transactionalId());
    }
    List<String> ids = new ArrayList<>(distinct);
    Map<String, TxnMetadata> before = new HashMap<>();
    for (String id : ids) {
      if (!pending.contains(id) && txns.containsKey(id)) {
        before.put(id, txns.get(id));
      }
    }
    CompletableFuture<Void> written = context.write(records);
    if (written.isCompletedExceptionally()) {
      return written; // refused at once: nothing was replayed
    }
    beforePending.putAll(before);
    pending.addAll(ids);
    CompletableFuture<Void> result = new CompletableFuture<>();
    written.whenCompleteAsync(
        (ignored, failure) -> {
          if (failure == null) {
            ids.forEach(this::settled);
            result.complete(null);
            ids.forEach(this::runAfterWrite);
            return;
          }
          Throwable cause = unwrap(failure);
          if (cause instanceof NotCoordinatorException) {
            ids.forEach(this::settled); // the shard is being dropped; the log decides
          } else {
            reconfirm(ids);
          }
          result.completeExceptionally(cause);
          ids.forEach(this::runAfterWrite);
        },
        context.executor());
    return result;
  }

  /** The id's pending write committed (or the log decides it): it is no longer pending. */
  private void settled(String id) {
    pending.remove(id);
    beforePending.remove(id);
  }

  /**
   * Called when an id whose write failed after being replayed is confirmed: its state is committed.
   */
  void onRecovered(Consumer<TxnMetadata> listener) {
    this.onRecovered = listener;
  }

  /**
   * A write failed after it was replayed (not replicated in time): the state in memory may or may
   * not be committed. The ids stay pending and their current state is written again until that
   * commits, which, the log being ordered, commits the earlier record too; only then do requests
   * act on it again (Kafka instead keeps the old state, which Brook's replay-first runtime cannot).
   */
  private void reconfirm(List<String> ids) {
    context
        .timer()
        .schedule(
            "txn-reconfirm-" + reconfirmSequence++,
            RECONFIRM_BACKOFF_MS,
            () -> {
              List<CoordinatorRecord> records = new ArrayList<>();
              for (String id : ids) {
                TxnMetadata current = txns.get(id);
                records.add(
                    current == null ? TxnRecords.tombstone(id) : TxnRecords.record(current));
              }
              context
                  .write(records)
                  .whenCompleteAsync(
                      (ignored, failure) -> {
                        if (failure == null) {
                          ids.forEach(this::settled);
                          ids.forEach(id -> get(id).ifPresent(onRecovered));
                        } else if (unwrap(failure) instanceof NotCoordinatorException) {
                          ids.forEach(this::settled);
                        } else {
                          reconfirm(ids);
                        }
                        // What waits for the ids' write waits for this one too.
                        ids.forEach(this::runAfterWrite);
                      },
                      context.executor());
            });
  }

  /**
   * The error a failed write stands for, as Kafka's transaction coordinator reports it: a write not
   * replicated in time is COORDINATOR_NOT_AVAILABLE (retriable, the client asks again).
   */
  static Throwable unwrap(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return cause instanceof TimeoutException
        ? new CoordinatorNotAvailableException(cause.getMessage())
        : cause;
  }
}
