package io.brook.broker.time;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Scheduler} with one daemon thread that sleeps until the earliest deadline, for many
 * deadlines that mostly never fire: every parked fetch and acks=all produce has one, and nearly all
 * complete before it. The deadlines are a {@link DeadlineQueue} under one lock held for a few
 * comparisons, so scheduling and cancelling cost O(log n), and a cancelled task leaves the queue at
 * once: nothing it references stays reachable until its deadline.
 *
 * <p>The thread is woken only by a deadline earlier than the one it sleeps until, or by the first
 * task when nothing was scheduled. Cancelling never wakes it, nor does a task due later than the
 * one it waits for. Each time it wakes it runs what is due and sleeps until the next deadline, so
 * if the task it waited for was cancelled it wakes once for nothing; with nothing scheduled it
 * sleeps until something is. Tasks run on the thread, one at a time, in deadline order (ties in the
 * order they were scheduled), never before their deadline on {@link System#nanoTime()}. A periodic
 * task's next run is due one period after its run ended.
 */
public final class DeadlineScheduler implements Scheduler, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeadlineScheduler.class);

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final Time time;
  private final Thread thread;

  // Guarded by lock.
  private final DeadlineQueue<Entry> queue = new DeadlineQueue<>();

  /** The thread waits on {@link #wake}: until {@link #sleepsUntilNanos}, or for any task. */
  private boolean sleeping;

  private boolean sleepsWithoutDeadline;
  private long sleepsUntilNanos;
  private boolean closed;

  /** Times a new task woke the thread, for tests. */
  private long wakeUps;

  /** Starts the scheduler's daemon thread, named {@code threadName}. */
  public DeadlineScheduler(String threadName) {
    this(threadName, Time.SYSTEM);
  }

  /**
   * For tests: deadlines on a simulated clock, and the thread looks at its queue again whenever the
   * clock moves (it would otherwise wait in real time for the deadline it computed).
   */
  DeadlineScheduler(String threadName, MockTime time) {
    this(threadName, (Time) time);
    time.addListener(this::clockMoved);
  }

  private DeadlineScheduler(String threadName, Time time) {
    this.time = time;
    thread = new Thread(this::work, threadName);
    thread.setDaemon(true);
    thread.start();
  }

  /** A scheduled task; periodic ones are queued again after each run. */
  private final class Entry extends DeadlineQueue.Entry implements Task {
    final String name;
    final Runnable task;
    final long periodNanos;
    boolean cancelled;

    Entry(String name, Runnable task, long periodNanos) {
      this.name = name;
      this.task = task;
      this.periodNanos = periodNanos;
    }

    @Override
    public boolean cancel() {
      lock.lock();
      try {
        cancelled = true;
        return queue.remove(this);
      } finally {
        lock.unlock();
      }
    }
  }

  @Override
  public Task schedule(String name, Runnable task, long delayMs) {
    return add(new Entry(name, task, 0), delayMs);
  }

  @Override
  public Task schedulePeriodic(String name, Runnable task, long initialDelayMs, long periodMs) {
    if (periodMs <= 0) {
      throw new IllegalArgumentException("periodMs must be positive");
    }
    return add(new Entry(name, task, TimeUnit.MILLISECONDS.toNanos(periodMs)), initialDelayMs);
  }

  private Entry add(Entry entry, long delayMs) {
    long due = time.nanoseconds() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMs));
    lock.lock();
    try {
      if (closed) {
        throw new RejectedExecutionException("the scheduler is closed");
      }
      queue.add(entry, due);
      if (sleeping && (sleepsWithoutDeadline || due - sleepsUntilNanos < 0)) {
        sleeping = false; // the thread looks at the queue before it sleeps again
        wakeUps++;
        wake.signal();
      }
      return entry;
    } finally {
      lock.unlock();
    }
  }

  private void work() {
    lock.lock();
    try {
      while (!closed) {
        Entry first = queue.peek();
        long now = time.nanoseconds();
        if (first == null || first.dueNanos() - now > 0) {
          sleep(first, now);
        } else {
          queue.poll();
          lock.unlock();
          try {
            run(first);
          } finally {
            lock.lock();
          }
          if (first.periodNanos > 0 && !first.cancelled && !closed) {
            queue.add(first, time.nanoseconds() + first.periodNanos);
          }
        }
      }
      queue.clear();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits (releasing the lock meanwhile) until {@code first} is due, or if null until a task is
   * scheduled, or until a task earlier than {@code first} is scheduled. It may return early.
   */
  private void sleep(Entry first, long now) {
    sleeping = true;
    sleepsWithoutDeadline = first == null;
    sleepsUntilNanos = first == null ? 0 : first.dueNanos();
    try {
      if (first == null) {
        wake.await();
      } else {
        wake.awaitNanos(first.dueNanos() - now);
      }
    } catch (InterruptedException e) {
      // Nothing interrupts this thread (close signals it): if something does, the loop goes on.
    } finally {
      sleeping = false;
    }
  }

  /** Has a sleeping thread look at its queue again. */
  private void clockMoved() {
    lock.lock();
    try {
      if (sleeping) {
        sleeping = false;
        wake.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Runs a task; whatever it throws is logged, and the thread goes on with the others. */
  private static void run(Entry entry) {
    try {
      ExecutorScheduler.runLogged(entry.name, entry.task);
    } catch (Throwable e) { // an Error: a dead timer would leave every waiting request unanswered
      log.error("Scheduled task failed task={}", entry.name, e);
    }
  }

  /** Tasks scheduled and not run yet (a periodic task counts between its runs). */
  public int pending() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the thread sleeps until a deadline (not running tasks, not idle); for tests. */
  boolean sleepsUntilADeadline() {
    lock.lock();
    try {
      return sleeping && !sleepsWithoutDeadline;
    } finally {
      lock.unlock();
    }
  }

  /** How often a newly scheduled task had to wake the thread; for tests. */
  long wakeUps() {
    lock.lock();
    try {
      return wakeUps;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the thread; tasks not run yet never run, and new ones are refused. Waits for a task
   * running meanwhile to end, unless called by a task.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      wake.signal();
    } finally {
      lock.unlock();
    }
    if (Thread.currentThread() != thread) {
      boolean interrupted = false;
      while (thread.isAlive()) {
        try {
          thread.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
