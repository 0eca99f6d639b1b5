package io.brook.broker.delayed;

import io.brook.broker.replica.Partition;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import java.io.Closeable;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waiting room for delayed operations ("purgatory"). Operations are indexed by the partitions
 * that can satisfy them; a partition's progress re-checks only its own waiters. Deadlines run on a
 * hashed wheel timer so no thread ever sleeps on behalf of a request.
 */
public final class DelayedOperations implements Partition.HighWatermarkListener, Closeable {
  private static final Logger log = LoggerFactory.getLogger(DelayedOperations.class);

  /**
   * 10 ms ticks: long-poll and acks deadlines are hundreds of milliseconds or more, and a coarser
   * wheel keeps the timer thread nearly idle.
   */
  private static final long TICK_MS = 10;

  private final ConcurrentHashMap<TopicPartition, Set<DelayedOperation>> watchers =
      new ConcurrentHashMap<>();
  private final Timer timer;

  public DelayedOperations() {
    ThreadFactory threads =
        runnable -> {
          Thread thread = new Thread(runnable, "brook-delayed-ops");
          thread.setDaemon(true);
          return thread;
        };
    this.timer = new HashedWheelTimer(threads, TICK_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * Completes {@code operation} now if it can, else parks it until progress on one of its
   * partitions satisfies it or {@code timeoutMs} passes.
   */
  public void submit(DelayedOperation operation, long timeoutMs) {
    if (operation.tryComplete()) {
      return;
    }
    for (TopicPartition tp : operation.partitions()) {
      watchers.computeIfAbsent(tp, k -> ConcurrentHashMap.newKeySet()).add(operation);
    }
    operation.setTimeout(
        timer.newTimeout(
            t -> {
              if (operation.complete(true)) {
                unwatch(operation);
              }
            },
            Math.max(0, timeoutMs),
            TimeUnit.MILLISECONDS));
    // Progress may have happened between the first check and the registration above.
    if (operation.tryComplete()) {
      unwatch(operation);
    }
  }

  @Override
  public void onProgress(TopicPartition topicPartition) {
    Set<DelayedOperation> waiting = watchers.get(topicPartition);
    if (waiting == null || waiting.isEmpty()) {
      return;
    }
    for (DelayedOperation operation : waiting) {
      try {
        if (operation.isCompleted() || operation.tryComplete()) {
          unwatch(operation);
        }
      } catch (RuntimeException e) {
        log.error("Delayed operation failed on progress of {}", topicPartition, e);
        unwatch(operation);
      }
    }
  }

  private void unwatch(DelayedOperation operation) {
    for (TopicPartition tp : operation.partitions()) {
      Set<DelayedOperation> waiting = watchers.get(tp);
      // Empty sets stay: removing one could race with a concurrent registration into it.
      // Their number is bounded by the partitions this broker hosts.
      if (waiting != null) {
        waiting.remove(operation);
      }
    }
  }

  /** Number of parked operations watching {@code tp}; for tests and metrics. */
  public int waiting(TopicPartition tp) {
    Set<DelayedOperation> waiting = watchers.get(tp);
    return waiting == null ? 0 : waiting.size();
  }

  /** Completes every parked operation as timed out and stops the timer. */
  @Override
  public void close() {
    for (Set<DelayedOperation> waiting : watchers.values()) {
      for (DelayedOperation operation : waiting) {
        operation.complete(true);
      }
    }
    watchers.clear();
    timer.stop();
  }
}
