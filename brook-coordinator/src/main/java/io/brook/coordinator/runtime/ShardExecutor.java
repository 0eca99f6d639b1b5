package io.brook.coordinator.runtime;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One coordinator thread, which the shards pinned to it share; their work runs there in order.
 *
 * <p>Requests are admitted only while fewer than {@code maxQueuedRequests} wait ({@link
 * #tryExecuteRequest}): beyond that the caller answers a retriable error instead of queueing, so a
 * flood of clients cannot grow the queue without bound. The runtime's own tasks (loads, timers,
 * continuations of writes, unloading) are not refused, since dropping one would leave a shard's
 * state half-changed; their number is bounded by the shards, by the keyed timers of their state and
 * by the requests admitted.
 *
 * <p>Every task runs guarded: whatever it throws is logged and the thread lives on. (A scheduled
 * executor would otherwise keep the throwable in the task's future, where nobody looks.)
 */
final class ShardExecutor {
  private static final Logger log = LoggerFactory.getLogger(ShardExecutor.class);

  private final ScheduledThreadPoolExecutor executor;
  private final int maxQueuedRequests;
  private final AtomicInteger queuedRequests = new AtomicInteger();

  ShardExecutor(String name, int maxQueuedRequests) {
    this.maxQueuedRequests = maxQueuedRequests;
    this.executor =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread thread = new Thread(runnable, name);
              thread.setDaemon(true);
              return thread;
            });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /**
   * Queues a request's task unless the queue is full.
   *
   * @return false if {@code maxQueuedRequests} requests already wait
   * @throws RejectedExecutionException once the executor is shut down
   */
  boolean tryExecuteRequest(Runnable task) {
    if (queuedRequests.incrementAndGet() > maxQueuedRequests) {
      queuedRequests.decrementAndGet();
      return false;
    }
    try {
      executor.execute(
          () -> {
            queuedRequests.decrementAndGet();
            runGuarded(task);
          });
    } catch (RejectedExecutionException e) {
      queuedRequests.decrementAndGet();
      throw e;
    }
    return true;
  }

  /** Runs one of the runtime's own tasks; never refused while the executor runs. */
  void execute(Runnable task) {
    executor.execute(() -> runGuarded(task));
  }

  ScheduledFuture<?> schedule(Runnable task, long delayMs) {
    return executor.schedule(() -> runGuarded(task), Math.max(0, delayMs), TimeUnit.MILLISECONDS);
  }

  /** Runs tasks on this thread, guarded; for continuations of a shard's futures. */
  Executor asExecutor() {
    return this::execute;
  }

  /** Tasks waiting (requests and the runtime's own, timers included). */
  int queueSize() {
    return executor.getQueue().size();
  }

  int queuedRequests() {
    return queuedRequests.get();
  }

  int maxQueuedRequests() {
    return maxQueuedRequests;
  }

  void shutdown() {
    executor.shutdown();
  }

  boolean awaitTermination(long timeoutMs) throws InterruptedException {
    return executor.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
  }

  void shutdownNow() {
    executor.shutdownNow();
  }

  private static void runGuarded(Runnable task) {
    try {
      task.run();
    } catch (Throwable t) {
      log.error("A coordinator task failed thread={}", Thread.currentThread().getName(), t);
    }
  }
}
