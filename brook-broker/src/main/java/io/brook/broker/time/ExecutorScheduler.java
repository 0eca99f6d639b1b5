package io.brook.broker.time;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link Scheduler}: tasks on a {@link ScheduledExecutorService}. Built over the
 * node's shared periodic pool ({@code brook-scheduler}), which its owner shuts down, or with a
 * thread of its own ({@link #singleThread}) for work a busy shared pool must not delay.
 */
public final class ExecutorScheduler implements Scheduler, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ExecutorScheduler.class);

  private final ScheduledExecutorService executor;
  private final boolean owned;

  /** Over {@code executor}, which stays its owner's to shut down. */
  public ExecutorScheduler(ScheduledExecutorService executor) {
    this(executor, false);
  }

  private ExecutorScheduler(ScheduledExecutorService executor, boolean owned) {
    this.executor = executor;
    this.owned = owned;
  }

  /** With one daemon thread of its own named {@code threadName}, stopped by {@link #close}. */
  public static ExecutorScheduler singleThread(String threadName) {
    return new ExecutorScheduler(
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, threadName);
              thread.setDaemon(true);
              return thread;
            }),
        true);
  }

  @Override
  public Task schedule(String name, Runnable task, long delayMs) {
    ScheduledFuture<?> future =
        executor.schedule(() -> runLogged(name, task), Math.max(0, delayMs), TimeUnit.MILLISECONDS);
    return () -> future.cancel(false);
  }

  @Override
  public Task schedulePeriodic(String name, Runnable task, long initialDelayMs, long periodMs) {
    ScheduledFuture<?> future =
        executor.scheduleWithFixedDelay(
            () -> runLogged(name, task),
            Math.max(0, initialDelayMs),
            periodMs,
            TimeUnit.MILLISECONDS);
    return () -> future.cancel(false);
  }

  /** A failure is logged: it must not cancel a periodic task, nor vanish in a future. */
  static void runLogged(String name, Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      log.error("Scheduled task failed task={}", name, e);
    }
  }

  /** Stops the executor if this scheduler owns it; a shared one is left to its owner. */
  @Override
  public void close() {
    if (owned) {
      executor.shutdownNow();
    }
  }
}
