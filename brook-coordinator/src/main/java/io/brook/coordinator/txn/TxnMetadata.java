package io.brook.coordinator.txn;

import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What the coordinator knows of one transactional id: the producer id and epoch it owns, its
 * transaction's state and partitions. Immutable: each transition returns the next value, which is
 * written to {@code __transaction_state} and becomes current when replayed.
 *
 * @param lastProducerEpoch the epoch before the latest bump of the same producer id, or -1; not
 *     stored, rebuilt by replay, so that a producer whose epoch the coordinator bumped (timeout
 *     abort) can still recover with KIP-360 InitProducerId
 * @param startTimestampMs when the open transaction added its first partition, or -1
 */
public record TxnMetadata(
    String transactionalId,
    long producerId,
    short producerEpoch,
    short lastProducerEpoch,
    int timeoutMs,
    TransactionState state,
    Set<TopicPartition> partitions,
    long startTimestampMs,
    long lastUpdateTimestampMs) {
  public static final short NO_EPOCH = -1;

  public TxnMetadata {
    partitions = Set.copyOf(partitions);
  }

  /** A transactional id seen for the first time: its producer id at epoch 0. */
  public static TxnMetadata fresh(
      String transactionalId, long producerId, int timeoutMs, long now) {
    return new TxnMetadata(
        transactionalId,
        producerId,
        (short) 0,
        NO_EPOCH,
        timeoutMs,
        TransactionState.EMPTY,
        Set.of(),
        -1L,
        now);
  }

  /** Bumping the epoch once more would reach the end of its range: take a new producer id. */
  public boolean isEpochExhausted() {
    return producerEpoch >= Short.MAX_VALUE - 1;
  }

  /** InitProducerId on an idle id: the next epoch fences every older instance. */
  public TxnMetadata bumpEpoch(int newTimeoutMs, long now) {
    check(TransactionState.EMPTY);
    return new TxnMetadata(
        transactionalId,
        producerId,
        (short) (producerEpoch + 1),
        producerEpoch,
        newTimeoutMs,
        TransactionState.EMPTY,
        Set.of(),
        -1L,
        now);
  }

  /** InitProducerId on an idle id whose epoch is exhausted: a new producer id, epoch 0. */
  public TxnMetadata withProducerId(long newProducerId, int newTimeoutMs, long now) {
    check(TransactionState.EMPTY);
    return new TxnMetadata(
        transactionalId,
        newProducerId,
        (short) 0,
        NO_EPOCH,
        newTimeoutMs,
        TransactionState.EMPTY,
        Set.of(),
        -1L,
        now);
  }

  /** AddPartitionsToTxn / AddOffsetsToTxn: the transaction is (or stays) open. */
  public TxnMetadata addPartitions(Set<TopicPartition> added, long now) {
    check(TransactionState.ONGOING);
    Set<TopicPartition> all = new LinkedHashSet<>(partitions);
    all.addAll(added);
    long start = state.isIdle() ? now : startTimestampMs;
    return with(producerEpoch, TransactionState.ONGOING, all, start, now);
  }

  /** EndTxn: markers are to be written. */
  public TxnMetadata prepareEnd(boolean commit, long now) {
    TransactionState next =
        commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
    check(next);
    return with(producerEpoch, next, partitions, startTimestampMs, now);
  }

  /**
   * Abort forced by the coordinator (timeout, or InitProducerId from a new instance): the epoch is
   * bumped first (Kafka's PrepareEpochFence), so the markers carry it and fence the old instance.
   */
  public TxnMetadata fenceAndAbort(long now) {
    check(TransactionState.PREPARE_EPOCH_FENCE);
    short bumped = producerEpoch < Short.MAX_VALUE ? (short) (producerEpoch + 1) : producerEpoch;
    return new TxnMetadata(
        transactionalId,
        producerId,
        bumped,
        producerEpoch,
        timeoutMs,
        TransactionState.PREPARE_ABORT,
        partitions,
        startTimestampMs,
        now);
  }

  /** Every marker is written: the transaction is over. */
  public TxnMetadata complete(long now) {
    TransactionState next =
        switch (state) {
          case PREPARE_COMMIT -> TransactionState.COMPLETE_COMMIT;
          case PREPARE_ABORT -> TransactionState.COMPLETE_ABORT;
          default -> throw new IllegalStateException(transactionalId + " is " + state);
        };
    return with(producerEpoch, next, Set.of(), startTimestampMs, now);
  }

  /** Expiry: the id is forgotten (written as a tombstone). */
  public TxnMetadata dead(long now) {
    check(TransactionState.DEAD);
    return with(producerEpoch, TransactionState.DEAD, Set.of(), startTimestampMs, now);
  }

  /** The same value with {@code lastProducerEpoch} (which replay derives, not the log). */
  public TxnMetadata withLastProducerEpoch(short last) {
    return new TxnMetadata(
        transactionalId,
        producerId,
        producerEpoch,
        last,
        timeoutMs,
        state,
        partitions,
        startTimestampMs,
        lastUpdateTimestampMs);
  }

  private TxnMetadata with(
      short epoch, TransactionState next, Set<TopicPartition> parts, long start, long now) {
    return new TxnMetadata(
        transactionalId, producerId, epoch, lastProducerEpoch, timeoutMs, next, parts, start, now);
  }

  private void check(TransactionState next) {
    if (!state.canTransitionTo(next)) {
      throw new IllegalStateException(
          "transactional id " + transactionalId + " cannot go from " + state + " to " + next);
    }
  }
}
