package io.brook.storage.segment;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-wide bound on open segment files ({@code brook.log.max.open.files}). Segments open their
 * files lazily through a {@link PooledHandle}; once more than {@link #maxOpenFiles()} handles are
 * open, the thread that opened the last one closes idle handles until the count is back under the
 * bound.
 *
 * <h2>Which handle goes</h2>
 *
 * A CLOCK approximation of least-recently-used: open handles wait in a FIFO; each pin sets the
 * handle's referenced bit (one volatile write, only when the bit is clear). The sweeper takes the
 * oldest handle: a pinned one goes back to the tail (it is in use and can never be closed), a
 * referenced one loses its bit and goes back (a second chance), an idle unreferenced one is closed.
 * So a pool hit touches only its own handle: no global lock, no list reordering, no allocation.
 *
 * <h2>How firm the bound is</h2>
 *
 * Pinned handles cannot be closed, so while more than the bound are pinned at once (a fetch storm
 * over more partitions than the bound) the pool stays above it and returns under it as the pins are
 * released (each release that leaves a handle idle while the pool is over the bound runs the
 * sweeper). One sweeper runs at a time; an opener that finds it busy leaves its excess to it, so
 * between sweeps the count may also exceed the bound by the number of threads opening at that
 * instant.
 *
 * <p>Lock order: the sweeper's lock, then a handle's monitor. A handle never calls into the pool's
 * sweeper while it holds its own monitor.
 */
public final class FileHandlePool {
  private static final Logger LOG = LoggerFactory.getLogger(FileHandlePool.class);

  /**
   * Default for {@code brook.log.max.open.files}: 8192. A broker's descriptors also serve sockets,
   * jars and checkpoint writes; with the common {@code ulimit -n} of 20,000 or more this leaves
   * well over half the limit to those, while 8192 idle-able files cover the active segments of
   * thousands of busy partitions.
   */
  public static final int DEFAULT_MAX_OPEN_FILES = 8192;

  private final int maxOpenFiles;
  private final AtomicInteger openFiles = new AtomicInteger();
  private final ConcurrentLinkedQueue<PooledHandle> clock = new ConcurrentLinkedQueue<>();
  private final ReentrantLock sweeping = new ReentrantLock();
  private final AtomicBoolean sweepWanted = new AtomicBoolean();
  private final LongAdder opens = new LongAdder();
  private final LongAdder evictions = new LongAdder();

  public FileHandlePool(int maxOpenFiles) {
    if (maxOpenFiles < 1) {
      throw new IllegalArgumentException("maxOpenFiles must be at least 1, got " + maxOpenFiles);
    }
    this.maxOpenFiles = maxOpenFiles;
  }

  /**
   * A pool that never closes an idle file: files still open lazily and close with their segment.
   * For tools and tests that open a few logs on their own.
   */
  public static FileHandlePool unbounded() {
    return new FileHandlePool(Integer.MAX_VALUE);
  }

  public int maxOpenFiles() {
    return maxOpenFiles;
  }

  /** Handles open right now. */
  public int openFiles() {
    return openFiles.get();
  }

  /** How many times a handle was opened (first use or reopen after eviction). */
  public long opens() {
    return opens.sum();
  }

  /** How many times an idle handle was closed to respect the bound. */
  public long evictions() {
    return evictions.sum();
  }

  private boolean bounded() {
    return maxOpenFiles != Integer.MAX_VALUE;
  }

  /** A handle just opened; called under its monitor. */
  void onOpened(PooledHandle handle) {
    openFiles.incrementAndGet();
    opens.increment();
    if (bounded() && !handle.queued) {
      handle.queued = true;
      clock.offer(handle);
    }
  }

  /** A handle just closed; called under its monitor. */
  void onClosed(PooledHandle handle) {
    openFiles.decrementAndGet();
  }

  /** A handle closed for good; called under its monitor. Linear, but once per segment's life. */
  void forget(PooledHandle handle) {
    if (handle.queued) {
      handle.queued = false;
      clock.remove(handle);
    }
  }

  boolean overBound() {
    return openFiles.get() > maxOpenFiles;
  }

  /**
   * Closes idle handles while more than the bound are open. Called with no handle monitor held,
   * after an open or after an unpin that left a handle idle while the pool was over its bound.
   *
   * <p>Every call first raises {@link #sweepWanted}; whoever holds the sweeper's lock sweeps again
   * while it is raised and re-checks it after unlocking. So a handle unpinned while another thread
   * was sweeping (and had skipped it as pinned) is never left open above the bound, and a pool
   * whose files are all pinned does not spin: it sweeps again only after the next open or unpin.
   */
  void evictIfOverBound() {
    sweepWanted.set(true);
    while (sweepWanted.get() && sweeping.tryLock()) {
      try {
        while (sweepWanted.getAndSet(false) && overBound()) {
          sweep();
        }
      } finally {
        sweeping.unlock();
      }
    }
  }

  /**
   * One run of the clock. Each handle is looked at most twice (once to clear its referenced bit,
   * once more to close it), so the run ends even when every handle is pinned.
   */
  private void sweep() {
    int budget = 2 * openFiles.get() + 2;
    while (overBound() && budget-- > 0) {
      PooledHandle handle = clock.poll();
      if (handle == null) {
        break;
      }
      synchronized (handle) {
        switch (handle.sweep()) {
          case CLOSED -> {
            evictions.increment();
            handle.queued = false;
          }
          case GONE -> handle.queued = false;
          case KEPT -> clock.offer(handle);
        }
      }
    }
    if (overBound()) {
      LOG.debug(
          "file pool stays over its bound openFiles={} maxOpenFiles={} (handles pinned)",
          openFiles.get(),
          maxOpenFiles);
    }
  }
}
