package io.brook.broker.api;

import io.brook.broker.delayed.DelayedOperation;
import io.brook.broker.replica.Partition;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.kafka.common.protocol.Errors;

/**
 * Waits, as acks=all, until the high watermark of every partition passes what was appended to it
 * (or the timeout, which answers REQUEST_TIMED_OUT for the partitions still waiting). Shared by
 * Produce and WriteTxnMarkers, which differ only in how they record each partition's outcome.
 *
 * @param <A> the caller's record of one append
 */
final class DelayedAcksAll<A extends DelayedAcksAll.Appended> extends DelayedOperation {
  /** One append on a partition's leader, waiting for its replicas. */
  interface Appended {
    Partition partition();

    /** The offset the high watermark must reach: the append's last offset + 1. */
    long requiredOffset();

    /** The leader epoch the append was made in; a new leader fails the wait. */
    int leaderEpoch();
  }

  private final List<A> pending;
  private final BiConsumer<A, Errors> onOutcome;
  private final Runnable onAllDone;

  /**
   * @param onOutcome records one append's outcome: NONE, why the wait failed, or REQUEST_TIMED_OUT
   * @param onAllDone runs once every outcome is recorded
   */
  DelayedAcksAll(List<A> pending, BiConsumer<A, Errors> onOutcome, Runnable onAllDone) {
    super(pending.stream().map(a -> a.partition().topicPartition()).toList());
    this.pending = pending;
    this.onOutcome = onOutcome;
    this.onAllDone = onAllDone;
  }

  @Override
  protected boolean isSatisfied() {
    for (A a : pending) {
      if (outcome(a).isEmpty()) {
        return false;
      }
    }
    return true;
  }

  @Override
  protected void onComplete(boolean timedOut) {
    for (A a : pending) {
      onOutcome.accept(a, outcome(a).orElse(Errors.REQUEST_TIMED_OUT));
    }
    onAllDone.run();
  }

  private Optional<Errors> outcome(A a) {
    return a.partition().acksAllOutcome(a.requiredOffset(), a.leaderEpoch());
  }
}
