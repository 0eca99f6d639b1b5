package io.brook.broker.time;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.utils.Time;

/**
 * A clock that moves only when told ({@link #sleep}), for deterministic tests and simulations, as
 * kafka-clients' test {@code MockTime}: listeners hear of every move (a {@link ManualScheduler}
 * runs the tasks that fell due), and {@link #waitObject} waits until the condition holds or the
 * clock, moved by someone else, passes the deadline.
 */
public final class MockTime implements Time {
  /** Told after the clock moved. */
  @FunctionalInterface
  public interface Listener {
    void onTimeUpdated();
  }

  private final AtomicLong nowNanos;

  /** The wall clock minus the monotonic one; moved by {@link #stepWallClock}. */
  private final AtomicLong wallClockOffsetMs;

  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  /** Starts at a fixed wall-clock time, so runs with the same inputs see the same timestamps. */
  public MockTime() {
    this(1_700_000_000_000L);
  }

  /** Starts at {@code wallClockMs}; the monotonic clock starts at 0. */
  public MockTime(long wallClockMs) {
    this.nowNanos = new AtomicLong();
    this.wallClockOffsetMs = new AtomicLong(wallClockMs);
  }

  public void addListener(Listener listener) {
    listeners.add(listener);
  }

  @Override
  public long milliseconds() {
    return wallClockOffsetMs.get() + TimeUnit.NANOSECONDS.toMillis(nowNanos.get());
  }

  @Override
  public long nanoseconds() {
    return nowNanos.get();
  }

  /** Moves the clock by {@code ms} and tells the listeners. */
  @Override
  public void sleep(long ms) {
    if (ms < 0) {
      throw new IllegalArgumentException("time cannot go back: " + ms);
    }
    nowNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    for (Listener listener : listeners) {
      listener.onTimeUpdated();
    }
  }

  /**
   * Steps the wall clock ({@link #milliseconds}) by {@code deltaMs}, back when negative, as NTP or
   * an operator steps a machine's clock; the monotonic clock ({@link #nanoseconds}) does not move.
   * Tells the listeners.
   */
  public void stepWallClock(long deltaMs) {
    wallClockOffsetMs.addAndGet(deltaMs);
    for (Listener listener : listeners) {
      listener.onTimeUpdated();
    }
  }

  /**
   * Waits on {@code obj} until {@code condition} holds (re-checked when {@code obj} is notified or
   * the clock moves) or the clock reaches {@code deadlineMs}.
   *
   * @throws TimeoutException when the clock reaches the deadline first
   */
  @Override
  public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs)
      throws InterruptedException {
    Listener wake =
        () -> {
          synchronized (obj) {
            obj.notifyAll();
          }
        };
    listeners.add(wake);
    try {
      synchronized (obj) {
        while (!condition.get()) {
          if (milliseconds() >= deadlineMs) {
            throw new TimeoutException("condition not satisfied before deadline");
          }
          obj.wait();
        }
      }
    } finally {
      listeners.remove(wake);
    }
  }
}
