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
 * @param prevProducerId the producer id this id had before an epoch overflow gave it {@code
 *     producerId} at transaction protocol V2's end of a transaction, or -1 (lets a retried EndTxn
 *     of the old id succeed)
 * @param nextProducerId the producer id an ending V2 transaction passes to once its markers (with
 *     the exhausted epoch) are written, or -1
 * @param clientTransactionVersion the transaction protocol the producer last used: 2 (KIP-890 part
 *     2, an epoch bump at every end of a transaction) or below
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
    long lastUpdateTimestampMs,
    long prevProducerId,
    long nextProducerId,
    short clientTransactionVersion) {
  public static final short NO_EPOCH = -1;
  public static final long NO_PRODUCER_ID = -1L;

  /** The first transaction protocol version whose EndTxn bumps the epoch (KIP-890 part 2). */
  public static final short TV2 = 2;

  public TxnMetadata {
    partitions = Set.copyOf(partitions);
  }

  /** A transaction protocol V0/V1 value: no previous or next producer id. */
  public TxnMetadata(
      String transactionalId,
      long producerId,
      short producerEpoch,
      short lastProducerEpoch,
      int timeoutMs,
      TransactionState state,
      Set<TopicPartition> partitions,
      long startTimestampMs,
      long lastUpdateTimestampMs) {
    this(
        transactionalId,
        producerId,
        producerEpoch,
        lastProducerEpoch,
        timeoutMs,
        state,
        partitions,
        startTimestampMs,
        lastUpdateTimestampMs,
        NO_PRODUCER_ID,
        NO_PRODUCER_ID,
        (short) 0);
  }

  /** Whether the producer speaks transaction protocol V2. */
  public boolean isV2() {
    return clientTransactionVersion >= TV2;
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

  /**
   * AddPartitionsToTxn / AddOffsetsToTxn, or a leader's implicit add (V2): the transaction is (or
   * stays) open. A V2 transaction's adds come from the leaders, so they cannot tell the producer's
   * version: it stays as EndTxn last set it, and only a V2 add raises it.
   */
  public TxnMetadata addPartitions(Set<TopicPartition> added, boolean v2, long now) {
    check(TransactionState.ONGOING);
    Set<TopicPartition> all = new LinkedHashSet<>(partitions);
    all.addAll(added);
    long start = state.isIdle() ? now : startTimestampMs;
    short version = v2 ? TV2 : clientTransactionVersion;
    return new TxnMetadata(
        transactionalId,
        producerId,
        producerEpoch,
        lastProducerEpoch,
        timeoutMs,
        TransactionState.ONGOING,
        all,
        start,
        now,
        prevProducerId,
        NO_PRODUCER_ID,
        version);
  }

  /** {@link #addPartitions(Set, boolean, long)} by a V0/V1 producer. */
  public TxnMetadata addPartitions(Set<TopicPartition> added, long now) {
    return addPartitions(added, false, now);
  }

  /** EndTxn of a V0/V1 producer: markers are to be written, with the producer's epoch. */
  public TxnMetadata prepareEnd(boolean commit, long now) {
    TransactionState next =
        commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
    check(next);
    return with(producerEpoch, next, partitions, startTimestampMs, now);
  }

  /**
   * EndTxn of a V2 producer (KIP-890 part 2): the epoch is bumped now, so the markers carry the new
   * epoch and every produce request still in flight from the ended transaction is fenced by them;
   * the producer continues with the new epoch. When the epoch is exhausted ({@link
   * #isEpochExhausted}) it is bumped one last time for the markers and the id passes to {@code
   * newProducerId} (epoch 0) when the transaction completes. An abort may also end an idle id (the
   * producer's writes never reached a leader), with no partitions.
   *
   * @param newProducerId a fresh producer id, needed only when the epoch is exhausted
   */
  public TxnMetadata prepareEndV2(boolean commit, long newProducerId, long now) {
    TransactionState next =
        commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
    check(next);
    if (isEpochExhausted() && newProducerId == NO_PRODUCER_ID) {
      throw new IllegalStateException(transactionalId + " needs a new producer id");
    }
    return new TxnMetadata(
        transactionalId,
        producerId,
        (short) (producerEpoch + 1),
        producerEpoch,
        timeoutMs,
        next,
        partitions,
        state.isIdle() ? now : startTimestampMs,
        now,
        prevProducerId,
        isEpochExhausted() ? newProducerId : NO_PRODUCER_ID,
        TV2);
  }

  /** The producer id and epoch the producer continues with after this V2 transaction ends. */
  public long producerIdAfterEnd() {
    return nextProducerId != NO_PRODUCER_ID ? nextProducerId : producerId;
  }

  /** See {@link #producerIdAfterEnd}. */
  public short producerEpochAfterEnd() {
    return nextProducerId != NO_PRODUCER_ID ? 0 : producerEpoch;
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
        now,
        prevProducerId,
        NO_PRODUCER_ID,
        clientTransactionVersion);
  }

  /**
   * Every marker is written: the transaction is over. A V2 transaction that exhausted its epoch
   * passes to its next producer id, remembering the previous one.
   */
  public TxnMetadata complete(long now) {
    TransactionState next =
        switch (state) {
          case PREPARE_COMMIT -> TransactionState.COMPLETE_COMMIT;
          case PREPARE_ABORT -> TransactionState.COMPLETE_ABORT;
          default -> throw new IllegalStateException(transactionalId + " is " + state);
        };
    if (nextProducerId != NO_PRODUCER_ID) {
      return new TxnMetadata(
          transactionalId,
          nextProducerId,
          (short) 0,
          NO_EPOCH,
          timeoutMs,
          next,
          Set.of(),
          startTimestampMs,
          now,
          producerId,
          NO_PRODUCER_ID,
          clientTransactionVersion);
    }
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
        lastUpdateTimestampMs,
        prevProducerId,
        nextProducerId,
        clientTransactionVersion);
  }

  private TxnMetadata with(
      short epoch, TransactionState next, Set<TopicPartition> parts, long start, long now) {
    return new TxnMetadata(
        transactionalId,
        producerId,
        epoch,
        lastProducerEpoch,
        timeoutMs,
        next,
        parts,
        start,
        now,
        prevProducerId,
        nextProducerId,
        clientTransactionVersion);
  }

  private void check(TransactionState next) {
    if (!state.canTransitionTo(next)) {
      throw new IllegalStateException(
          "transactional id " + transactionalId + " cannot go from " + state + " to " + next);
    }
  }
}
