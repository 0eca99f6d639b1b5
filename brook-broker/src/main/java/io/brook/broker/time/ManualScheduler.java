package io.brook.broker.time;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * A deterministic {@link Scheduler} on a {@link MockTime}: nothing runs on its own. When the clock
 * moves, the tasks that fell due run on the thread that moved it, in deadline order (ties in the
 * order they were scheduled), so a test or a simulation decides exactly when every timer fires and
 * a run with the same inputs is the same run. A task scheduled with no delay runs at the next move
 * or {@link #runDue}. A periodic task's next run is one period after the deadline it ran for.
 */
public final class ManualScheduler implements Scheduler {
  private final MockTime time;
  private final PriorityQueue<Entry> queue =
      new PriorityQueue<>(
          (a, b) ->
              a.dueNanos != b.dueNanos
                  ? Long.compare(a.dueNanos, b.dueNanos)
                  : Long.compare(a.sequence, b.sequence));
  private long sequence;
  private boolean running;

  /** A scheduled run. */
  private final class Entry implements Task {
    final String name;
    final Runnable task;
    final long periodNanos;
    final long sequence;
    long dueNanos;
    boolean cancelled;

    Entry(String name, Runnable task, long dueNanos, long periodNanos, long sequence) {
      this.name = name;
      this.task = task;
      this.dueNanos = dueNanos;
      this.periodNanos = periodNanos;
      this.sequence = sequence;
    }

    @Override
    public boolean cancel() {
      synchronized (ManualScheduler.this) {
        boolean wasPending = !cancelled && queue.remove(this);
        cancelled = true;
        return wasPending;
      }
    }

    @Override
    public String toString() {
      return name + "@" + TimeUnit.NANOSECONDS.toMillis(dueNanos) + "ms";
    }
  }

  public ManualScheduler(MockTime time) {
    this.time = time;
    time.addListener(this::runDue);
  }

  public MockTime time() {
    return time;
  }

  @Override
  public synchronized Task schedule(String name, Runnable task, long delayMs) {
    return add(name, task, delayMs, 0);
  }

  @Override
  public synchronized Task schedulePeriodic(
      String name, Runnable task, long initialDelayMs, long periodMs) {
    if (periodMs <= 0) {
      throw new IllegalArgumentException("periodMs must be positive");
    }
    return add(name, task, initialDelayMs, TimeUnit.MILLISECONDS.toNanos(periodMs));
  }

  private Entry add(String name, Runnable task, long delayMs, long periodNanos) {
    long due = time.nanoseconds() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMs));
    Entry entry = new Entry(name, task, due, periodNanos, sequence++);
    queue.add(entry);
    return entry;
  }

  /**
   * Runs every task due at the current time, including those the runs schedule for now. A task that
   * moves the clock itself does not run the others re-entrantly: this loop picks them up.
   */
  public void runDue() {
    synchronized (this) {
      if (running) {
        return;
      }
      running = true;
    }
    try {
      while (true) {
        Entry next;
        synchronized (this) {
          next = queue.peek();
          if (next == null || next.dueNanos > time.nanoseconds()) {
            return;
          }
          queue.poll();
        }
        ExecutorScheduler.runLogged(next.name, next.task);
        synchronized (this) {
          if (next.periodNanos > 0 && !next.cancelled) {
            next.dueNanos += next.periodNanos;
            queue.add(next);
          }
        }
      }
    } finally {
      synchronized (this) {
        running = false;
      }
    }
  }

  /** The deadline of the next task, in ms of the monotonic clock, or -1 if none is scheduled. */
  public synchronized long nextDueMs() {
    Entry next = queue.peek();
    return next == null ? -1 : TimeUnit.NANOSECONDS.toMillis(next.dueNanos);
  }

  /** The tasks scheduled and not run yet, earliest first (for tests and simulation traces). */
  public synchronized List<String> pending() {
    List<Entry> entries = new ArrayList<>(queue);
    entries.sort(queue.comparator());
    return entries.stream().map(Entry::toString).toList();
  }
}
