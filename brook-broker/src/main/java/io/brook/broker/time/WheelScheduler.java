package io.brook.broker.time;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Scheduler} on a hashed wheel timer with one daemon thread: scheduling and cancelling are
 * O(1) and a cancelled task is dropped at once, which suits many short deadlines that mostly never
 * fire (every parked fetch and acks=all produce has one). Deadlines are rounded up to the tick.
 */
public final class WheelScheduler implements Scheduler, AutoCloseable {
  private final HashedWheelTimer timer;

  public WheelScheduler(String threadName, long tickMs) {
    this.timer =
        new HashedWheelTimer(
            runnable -> {
              Thread thread = new Thread(runnable, threadName);
              thread.setDaemon(true);
              return thread;
            },
            tickMs,
            TimeUnit.MILLISECONDS);
  }

  @Override
  public Task schedule(String name, Runnable task, long delayMs) {
    Timeout timeout;
    try {
      timeout =
          timer.newTimeout(
              t -> ExecutorScheduler.runLogged(name, task),
              Math.max(0, delayMs),
              TimeUnit.MILLISECONDS);
    } catch (IllegalStateException stopped) {
      throw new RejectedExecutionException("the timer is stopped", stopped);
    }
    return timeout::cancel;
  }

  @Override
  public Task schedulePeriodic(String name, Runnable task, long initialDelayMs, long periodMs) {
    Periodic periodic = new Periodic(name, task, periodMs);
    periodic.next(initialDelayMs);
    return periodic;
  }

  /** A periodic task: each run schedules the next, until cancelled or the timer stops. */
  private final class Periodic implements Task {
    private final String name;
    private final Runnable task;
    private final long periodMs;
    private volatile boolean cancelled;
    private volatile Task current;

    Periodic(String name, Runnable task, long periodMs) {
      this.name = name;
      this.task = task;
      this.periodMs = periodMs;
    }

    void next(long delayMs) {
      current = schedule(name, this::runAndReschedule, delayMs);
    }

    private void runAndReschedule() {
      if (cancelled) {
        return;
      }
      ExecutorScheduler.runLogged(name, task);
      if (!cancelled) {
        try {
          next(periodMs);
        } catch (RejectedExecutionException stopped) {
          // The timer stopped with its owner.
        }
      }
    }

    @Override
    public boolean cancel() {
      cancelled = true;
      Task pending = current;
      return pending != null && pending.cancel();
    }
  }

  /** Stops the thread; tasks not run yet never run. */
  @Override
  public void close() {
    timer.stop();
  }
}
