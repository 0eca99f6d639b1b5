package io.brook.simulation;

import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The storage layer's {@link ScheduledExecutorService} (flush, checkpoints, producer expiry,
 * asynchronous file deletion) on the simulation's {@link ManualScheduler}: no thread, every task
 * runs on simulated time. One per broker life, shut down when the broker crashes, so a dead
 * broker's periodic tasks stop.
 */
final class SimulatedExecutor extends AbstractExecutorService implements ScheduledExecutorService {
  private final ManualScheduler scheduler;
  private final List<Scheduler.Task> tasks = new ArrayList<>();
  private boolean shutdown;

  SimulatedExecutor(ManualScheduler scheduler) {
    this.scheduler = scheduler;
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.MILLISECONDS);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return add(command, unit.toMillis(delay), 0);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("the storage layer schedules no callables");
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return add(command, unit.toMillis(initialDelay), unit.toMillis(period));
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return add(command, unit.toMillis(initialDelay), unit.toMillis(delay));
  }

  private ScheduledFuture<?> add(Runnable command, long delayMs, long periodMs) {
    if (shutdown) {
      throw new RejectedExecutionException("the broker is down");
    }
    Scheduler.Task task =
        periodMs > 0
            ? scheduler.schedulePeriodic("storage", command, delayMs, periodMs)
            : scheduler.schedule("storage", command, delayMs);
    tasks.add(task);
    return new Handle(task);
  }

  @Override
  public void shutdown() {
    shutdown = true;
    tasks.forEach(Scheduler.Task::cancel);
    tasks.clear();
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown();
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return shutdown;
  }

  /** A scheduled task; only cancellation is used by the storage layer. */
  private static final class Handle implements ScheduledFuture<Object> {
    private final Scheduler.Task task;
    private boolean cancelled;

    Handle(Scheduler.Task task) {
      this.task = task;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return 0;
    }

    @Override
    public int compareTo(Delayed other) {
      return 0;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      cancelled = true;
      return task.cancel();
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return cancelled;
    }

    @Override
    public Object get() throws ExecutionException {
      throw new UnsupportedOperationException("nothing waits on a storage task");
    }

    @Override
    public Object get(long timeout, TimeUnit unit) throws ExecutionException {
      throw new UnsupportedOperationException("nothing waits on a storage task");
    }
  }
}
