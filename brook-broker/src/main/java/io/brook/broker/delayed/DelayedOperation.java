package io.brook.broker.delayed;

import io.netty.util.Timeout;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;

/**
 * Work parked until a condition holds or a deadline passes: an acks=all produce waiting for the
 * high watermark, a fetch waiting for {@code min.bytes}. Completed exactly once, by whichever comes
 * first: progress on one of its partitions ({@link DelayedOperations#onProgress}) or its timer.
 */
public abstract class DelayedOperation {
  private final AtomicBoolean completed = new AtomicBoolean();
  private final List<TopicPartition> partitions;
  private volatile Timeout timeout;

  protected DelayedOperation(List<TopicPartition> partitions) {
    this.partitions = List.copyOf(partitions);
  }

  /** The partitions whose progress may satisfy this operation. */
  final List<TopicPartition> partitions() {
    return partitions;
  }

  /** Whether the operation can complete now. Called on any thread, possibly concurrently. */
  protected abstract boolean isSatisfied();

  /** Builds and delivers the answer. Runs exactly once. */
  protected abstract void onComplete(boolean timedOut);

  final boolean isCompleted() {
    return completed.get();
  }

  final void setTimeout(Timeout value) {
    timeout = value;
  }

  /** Completes the operation if its condition holds; true if this call completed it. */
  final boolean tryComplete() {
    if (completed.get() || !isSatisfied()) {
      return false;
    }
    return complete(false);
  }

  final boolean complete(boolean timedOut) {
    if (!completed.compareAndSet(false, true)) {
      return false;
    }
    Timeout pending = timeout;
    if (pending != null && !timedOut) {
      pending.cancel();
    }
    onComplete(timedOut);
    return true;
  }
}
