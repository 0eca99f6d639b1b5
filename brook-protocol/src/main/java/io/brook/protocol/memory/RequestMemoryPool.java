package io.brook.protocol.memory;

import io.netty.util.internal.PlatformDependent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-wide budget for request bytes ({@code queued.max.request.bytes}): a frame's whole
 * length is reserved here, as soon as its 4-byte prefix has been read and checked and before any
 * buffer for it is allocated, and given back when the request's buffer is released.
 *
 * <p>Strict, unlike Kafka's pool (which lets one allocation overshoot): reserved bytes never exceed
 * the capacity, so a frame larger than the capacity can never be read (the frame decoder refuses
 * it). A waiter holds nothing while it waits. Who gets memory first:
 *
 * <ul>
 *   <li>waiters are granted in arrival order;
 *   <li>a small request (at most 1/32 of the capacity: ordinary produce, fetch and metadata
 *       requests) that fits is granted at once even while larger ones wait, so connections
 *       streaming huge frames, quickly or slowly, cannot hold up everyone else's small requests
 *       behind them;
 *   <li>but once the oldest waiter has waited {@link #MAX_OVERTAKEN_NANOS}, small requests stop
 *       overtaking it whenever they are what keeps it out (it would fit in what large requests
 *       leave): they drain and it gets in, so a large request is never starved by a steady stream
 *       of small ones. While large requests keep it out (a slow sender, say), small ones still go
 *       ahead: holding them up would not serve it any sooner.
 * </ul>
 *
 * <p>Granting happens on the thread that releases bytes; the {@link Waiter} moves the work to its
 * own event loop.
 *
 * <p>Thread-safe: one short lock per reservation and per release.
 */
public final class RequestMemoryPool {
  private static final Logger LOG = LoggerFactory.getLogger(RequestMemoryPool.class);

  /** The share of the JVM's memory taken when {@code queued.max.request.bytes} is -1. */
  public static final int DEFAULT_MEMORY_DIVISOR = 4;

  /** A request of at most capacity / this is small: it may overtake larger waiters. */
  static final int SMALL_REQUEST_DIVISOR = 32;

  /** How long the oldest waiter may be overtaken by small requests. */
  static final long MAX_OVERTAKEN_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** Told once that the bytes it asked for are now reserved for it. */
  public interface Waiter {
    /**
     * The bytes are reserved; the waiter now owns them and must {@link #release} them. Called on
     * the releasing thread, outside the pool's lock; must not block.
     */
    void granted();
  }

  private record Pending(long bytes, Waiter waiter, long sinceNanos) {}

  private final long capacity;
  private final long smallRequestBytes;
  private final LongSupplier nanoClock;
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  private long used;

  /** Of {@link #used}, the bytes of small requests (the class follows from the size). */
  private long usedBySmall;

  /**
   * @param capacity bytes of requests that may be held at once, positive
   */
  public RequestMemoryPool(long capacity) {
    this(capacity, System::nanoTime);
  }

  RequestMemoryPool(long capacity, LongSupplier nanoClock) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive, was " + capacity);
    }
    this.capacity = capacity;
    this.smallRequestBytes = capacity / SMALL_REQUEST_DIVISOR;
    this.nanoClock = nanoClock;
  }

  /**
   * The capacity used when {@code queued.max.request.bytes} is -1: a quarter of the smaller of the
   * JVM's maximum heap and the direct memory Netty may allocate (request frames live in direct
   * buffers; parsed requests on the heap), so requests alone can never exhaust either.
   */
  public static long defaultCapacity() {
    long memory = Math.min(Runtime.getRuntime().maxMemory(), PlatformDependent.maxDirectMemory());
    return Math.max(1, memory / DEFAULT_MEMORY_DIVISOR);
  }

  public long capacity() {
    return capacity;
  }

  public synchronized long used() {
    return used;
  }

  public synchronized long available() {
    return capacity - used;
  }

  /** Connections waiting for a reservation. */
  public synchronized int waiters() {
    return waiting.size();
  }

  /**
   * Reserves {@code bytes} if they may be granted now (as {@link #reserveOrWait}), without
   * queueing.
   *
   * @return true if reserved
   * @throws IllegalArgumentException if {@code bytes} is not positive or exceeds the capacity
   */
  public boolean tryReserve(long bytes) {
    checkReservable(bytes);
    synchronized (this) {
      return tryReserveLocked(bytes);
    }
  }

  /**
   * Reserves {@code bytes} now if nobody is waiting and they fit; otherwise queues {@code waiter},
   * which is {@link Waiter#granted() told} once they are reserved for it.
   *
   * @return true if reserved now (the waiter will not be called)
   * @throws IllegalArgumentException if {@code bytes} is not positive or exceeds the capacity
   */
  public boolean reserveOrWait(long bytes, Waiter waiter) {
    checkReservable(bytes);
    synchronized (this) {
      if (tryReserveLocked(bytes)) {
        return true;
      }
      waiting.addLast(new Pending(bytes, waiter, nanoClock.getAsLong()));
      return false;
    }
  }

  private void checkReservable(long bytes) {
    if (bytes <= 0 || bytes > capacity) {
      throw new IllegalArgumentException(
          "cannot reserve " + bytes + " bytes from a pool of " + capacity);
    }
  }

  private boolean tryReserveLocked(long bytes) {
    if (capacity - used >= bytes
        && (waiting.isEmpty() || mayOvertake(bytes, nanoClock.getAsLong()))) {
      take(bytes);
      return true;
    }
    return false;
  }

  /**
   * Withdraws a waiter whose connection went away.
   *
   * @return true if it was still waiting (nothing is reserved for it); false if it was already
   *     granted (or never queued): then its grant is delivered and it must release the bytes
   */
  public boolean cancel(Waiter waiter) {
    List<Waiter> granted;
    synchronized (this) {
      boolean removed = false;
      for (Iterator<Pending> it = waiting.iterator(); it.hasNext(); ) {
        if (it.next().waiter() == waiter) {
          it.remove();
          removed = true;
          break;
        }
      }
      if (!removed) {
        return false;
      }
      // The head may have been what blocked the ones behind it.
      granted = grantLocked();
    }
    notifyGranted(granted);
    return true;
  }

  /** Gives back bytes reserved earlier, granting waiters that now fit, in arrival order. */
  public void release(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("cannot release " + bytes + " bytes");
    }
    List<Waiter> granted;
    synchronized (this) {
      if (bytes > used) {
        throw new IllegalStateException("releasing " + bytes + " bytes but only " + used + " used");
      }
      used -= bytes;
      if (bytes <= smallRequestBytes) {
        usedBySmall -= bytes;
      }
      granted = grantLocked();
    }
    notifyGranted(granted);
  }

  /** Whether a small request may be granted ahead of the waiters; the queue is not empty. */
  private boolean mayOvertake(long bytes, long nowNanos) {
    if (bytes > smallRequestBytes) {
      return false;
    }
    Pending oldest = waiting.getFirst();
    boolean keptOutByLargeOnes = capacity - (used - usedBySmall) < oldest.bytes();
    return keptOutByLargeOnes || nowNanos - oldest.sinceNanos() < MAX_OVERTAKEN_NANOS;
  }

  private void take(long bytes) {
    used += bytes;
    if (bytes <= smallRequestBytes) {
      usedBySmall += bytes;
    }
  }

  private List<Waiter> grantLocked() {
    List<Waiter> granted = new ArrayList<>(0);
    Pending head;
    while ((head = waiting.peekFirst()) != null && capacity - used >= head.bytes()) {
      waiting.removeFirst();
      take(head.bytes());
      granted.add(head.waiter());
    }
    if (head != null && capacity - used > 0) {
      // The head does not fit yet; small waiters behind it that do may go first.
      long now = nanoClock.getAsLong();
      for (Iterator<Pending> it = waiting.iterator(); it.hasNext(); ) {
        Pending next = it.next();
        if (next != head && capacity - used >= next.bytes() && mayOvertake(next.bytes(), now)) {
          it.remove();
          take(next.bytes());
          granted.add(next.waiter());
        }
      }
    }
    return granted;
  }

  private static void notifyGranted(List<Waiter> granted) {
    for (Waiter waiter : granted) {
      try {
        waiter.granted();
      } catch (RuntimeException e) {
        // A waiter must take ownership of its grant; one that throws is a bug, not a reason to
        // lose the others' grants.
        LOG.error("A request-memory waiter failed to take its grant", e);
      }
    }
  }

  @Override
  public synchronized String toString() {
    return "RequestMemoryPool[capacity="
        + capacity
        + " used="
        + used
        + " waiters="
        + waiting.size()
        + "]";
  }
}
