package io.brook.coordinator.txn;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The states of a transactional id, with Kafka's ids (the byte stored in {@code
 * __transaction_state}) and names (what DescribeTransactions and ListTransactions report), and
 * Kafka's rule for which state may follow which.
 */
public enum TransactionState {
  EMPTY(0, "Empty"),
  ONGOING(1, "Ongoing"),
  PREPARE_COMMIT(2, "PrepareCommit"),
  PREPARE_ABORT(3, "PrepareAbort"),
  COMPLETE_COMMIT(4, "CompleteCommit"),
  COMPLETE_ABORT(5, "CompleteAbort"),
  DEAD(6, "Dead"),
  PREPARE_EPOCH_FENCE(7, "PrepareEpochFence");

  private final byte id;
  private final String stateName;

  TransactionState(int id, String stateName) {
    this.id = (byte) id;
    this.stateName = stateName;
  }

  public byte id() {
    return id;
  }

  /** Kafka's name of the state, e.g. {@code PrepareCommit}. */
  public String stateName() {
    return stateName;
  }

  /**
   * @throws IllegalArgumentException for an id Kafka does not define
   */
  public static TransactionState fromId(byte id) {
    for (TransactionState state : values()) {
      if (state.id == id) {
        return state;
      }
    }
    throw new IllegalArgumentException("unknown transaction state id " + id);
  }

  /** The state named {@code name} (case as Kafka spells it), if any. */
  public static Optional<TransactionState> fromName(String name) {
    for (TransactionState state : values()) {
      if (state.stateName.equals(name)) {
        return Optional.of(state);
      }
    }
    return Optional.empty();
  }

  /** Whether markers are being written: the transaction has ended but is not complete yet. */
  public boolean isPrepare() {
    return this == PREPARE_COMMIT || this == PREPARE_ABORT;
  }

  /** Whether no transaction is open: a new one may start, the producer may be re-initialised. */
  public boolean isIdle() {
    return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
  }

  /** Whether {@code next} may follow this state (Kafka's valid previous states, reversed). */
  public boolean canTransitionTo(TransactionState next) {
    return next.validPrevious().contains(this);
  }

  private Set<TransactionState> validPrevious() {
    return switch (this) {
      case EMPTY, DEAD -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
      case ONGOING -> EnumSet.of(ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
      case PREPARE_COMMIT, PREPARE_EPOCH_FENCE -> EnumSet.of(ONGOING);
      // An idle id may be aborted by a V2 producer whose writes never reached a leader.
      case PREPARE_ABORT ->
          EnumSet.of(ONGOING, PREPARE_EPOCH_FENCE, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
      case COMPLETE_COMMIT -> EnumSet.of(PREPARE_COMMIT);
      case COMPLETE_ABORT -> EnumSet.of(PREPARE_ABORT);
    };
  }
}
