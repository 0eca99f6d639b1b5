package io.brook.broker.delayed;

import io.brook.broker.time.Scheduler;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Work parked until a condition holds or a deadline passes: an acks=all produce waiting for the
 * high watermark, a fetch waiting for {@code min.bytes}. Completed exactly once, by whichever comes
 * first: progress on one of its partitions ({@link DelayedOperations#onProgress}), its timer, or
 * the broker closing.
 */
public abstract class DelayedOperation {
  /** What a waiting operation's condition reads, so progress wakes only those it can satisfy. */
  public enum WaitsOn {
    /**
     * The high watermark (or the last stable offset, which moves only with it), the partition's
     * role and leader epoch: consumer fetches, acks=all, coordinator commits.
     */
    HIGH_WATERMARK,
    /** The log end offset as well: follower fetches, which read up to the leader's log end. */
    LOG_END
  }

  /** Operations are woken in the order they were created (see {@link DelayedOperations}). */
  private static final AtomicLong CREATED = new AtomicLong();

  final long sequence = CREATED.getAndIncrement();
  private final AtomicBoolean completed = new AtomicBoolean();
  private final List<TopicPartition> partitions;
  private final WaitsOn waitsOn;
  private volatile Scheduler.Task timeout;

  /**
   * The session's watch this operation is parked in, or null when it is registered under each of
   * its partitions; set before the watch publishes it, never changed after.
   */
  StandingWatch standing;

  /**
   * @param partitions the partitions whose progress may satisfy this operation; each is watched
   *     once however often it is listed
   */
  protected DelayedOperation(List<TopicPartition> partitions) {
    this(partitions, WaitsOn.HIGH_WATERMARK);
  }

  protected DelayedOperation(List<TopicPartition> partitions, WaitsOn waitsOn) {
    this.partitions = partitions.stream().distinct().toList();
    this.waitsOn = waitsOn;
  }

  /** The distinct partitions whose progress may satisfy this operation. */
  final List<TopicPartition> partitions() {
    return partitions;
  }

  final WaitsOn waitsOn() {
    return waitsOn;
  }

  /** Whether the operation can complete now. Called on any thread, possibly concurrently. */
  protected abstract boolean isSatisfied();

  /** Builds and delivers the answer. Runs exactly once. */
  protected abstract void onComplete(boolean timedOut);

  final boolean isCompleted() {
    return completed.get();
  }

  /**
   * Records the operation's timer. If the operation completed while the timer was being created,
   * the timer is cancelled here: {@link #complete} may have read the field before it was set.
   */
  final void setTimeout(Scheduler.Task value) {
    timeout = value;
    if (completed.get()) {
      value.cancel();
    }
  }

  /** Completes the operation if its condition holds; true if this call completed it. */
  final boolean tryComplete() {
    if (completed.get() || !isSatisfied()) {
      return false;
    }
    return complete(false);
  }

  /** Completes the operation unless something else already did; true if this call did. */
  final boolean complete(boolean timedOut) {
    if (!completed.compareAndSet(false, true)) {
      return false;
    }
    Scheduler.Task pending = timeout;
    if (pending != null && !timedOut) {
      pending.cancel();
    }
    onComplete(timedOut);
    return true;
  }
}
