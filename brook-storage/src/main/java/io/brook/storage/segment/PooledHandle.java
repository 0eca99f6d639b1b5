package io.brook.storage.segment;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files that a {@link FileHandlePool} may close while nobody uses them and that reopen on the next
 * use. Callers {@link #pin()} the handle around every use of the open files and {@link #unpin()} it
 * afterwards (exactly once per successful pin); while at least one pin is held the files stay open.
 *
 * <h2>State</h2>
 *
 * <pre>
 *            pin (opens)             unpin ... pin
 *   CLOSED ─────────────▶ OPEN(n≥1) ◀─────────────▶ OPEN(0)
 *     ▲                                               │
 *     └─────────────── evicted by the pool ───────────┘
 *   any state ── retire ──▶ RETIRED (at once when unpinned, else at the last unpin)
 * </pre>
 *
 * One {@link AtomicInteger} holds it: {@code n >= 0} is open with {@code n} pins, {@code CLOSED}
 * (-1) and {@code RETIRED} (-2) are closed. A pin of an open handle is one compare-and-set: no
 * lock, no allocation. Opening, and every transition to a closed state, run under the handle's
 * monitor, and the pool closes a handle only by swapping exactly {@code OPEN(0)} for {@code
 * CLOSED}: a pin that won its compare-and-set first keeps the files open; a pin that lost sees
 * {@code CLOSED}, waits for the monitor and reopens. Hence files are never closed under a pin.
 *
 * <p>Subclasses implement {@link #openFiles()} and {@link #closeFiles()} (both called under the
 * monitor, the latter only with no pin held) and must touch the files only while pinned.
 */
public abstract class PooledHandle {
  private static final Logger LOG = LoggerFactory.getLogger(PooledHandle.class);
  private static final int CLOSED = -1;
  private static final int RETIRED = -2;

  /** What the pool's sweeper did with a handle. */
  enum Sweep {
    /** Idle and not recently used: closed. */
    CLOSED,
    /** Pinned or recently used: stays open, back in the queue. */
    KEPT,
    /** Already closed by someone else (its segment closed or was deleted): dropped. */
    GONE
  }

  private final FileHandlePool pool;
  private final AtomicInteger state = new AtomicInteger(CLOSED);

  /** Set on every pin, cleared by the sweeper: the CLOCK's second chance. */
  private volatile boolean referenced;

  /** Close for good at the last unpin. */
  private volatile boolean retiring;

  /** Whether the pool's clock queue holds this handle; guarded by this handle's monitor. */
  boolean queued;

  protected PooledHandle(FileHandlePool pool) {
    this.pool = pool;
  }

  /** Opens the files; under the monitor, only from a closed state. */
  protected abstract void openFiles() throws IOException;

  /** Closes the files; under the monitor, with no pin held. */
  protected abstract void closeFiles() throws IOException;

  /**
   * Keeps the files open (opening them if the pool closed them) until the matching {@link
   * #unpin()}.
   *
   * @throws ClosedChannelException if the handle was retired
   * @throws IOException if the files cannot be reopened
   */
  public final void pin() throws IOException {
    int s;
    while ((s = state.get()) >= 0) {
      // Losing the race to another pin or unpin retries here, never on the monitor.
      if (state.compareAndSet(s, s + 1)) {
        markReferenced();
        return;
      }
    }
    if (pinSlow()) {
      pool.evictIfOverBound();
    }
  }

  private void markReferenced() {
    if (!referenced) {
      referenced = true; // written only when clear, so hot handles do not bounce a cache line
    }
  }

  /** Returns whether the files were (re)opened, which may push the pool over its bound. */
  private boolean pinSlow() throws IOException {
    synchronized (this) {
      int s;
      while ((s = state.get()) >= 0) {
        // Open: only pins and unpins race here, and they never close the files.
        if (state.compareAndSet(s, s + 1)) {
          markReferenced();
          return false;
        }
      }
      if (s == RETIRED) {
        throw new ClosedChannelException();
      }
      openFiles();
      state.set(1);
      markReferenced();
      pool.onOpened(this);
      return true;
    }
  }

  /** Gives back one pin. */
  public final void unpin() {
    int s;
    do {
      s = state.get();
      if (s <= 0) {
        // Checked before changing anything: a stray unpin must not turn OPEN(0) into CLOSED.
        throw new IllegalStateException("unpin without a pin on " + this);
      }
    } while (!state.compareAndSet(s, s - 1));
    if (s > 1) {
      return;
    }
    if (retiring) {
      closeIfRetiring();
    } else if (pool.overBound()) {
      pool.evictIfOverBound();
    }
  }

  /** Whether at least one pin is held; for tests and assertions. */
  public final boolean isPinned() {
    return state.get() > 0;
  }

  /** Whether the files are open right now. */
  public final boolean isOpen() {
    return state.get() >= 0;
  }

  /** Whether the handle has been retired: it will not open again. */
  public final boolean isRetired() {
    return retiring;
  }

  /**
   * Closes the files for good: at once when nobody holds a pin, else at the last unpin, so a reader
   * that pinned the handle before (a fetch response being sent) finishes first. Pins already held
   * stay valid and new pins succeed while the files are still open; once closed, {@link #pin()}
   * fails.
   */
  protected final void retire() throws IOException {
    synchronized (this) {
      retiring = true;
      int s = state.get();
      if (s == CLOSED) {
        state.set(RETIRED);
        pool.forget(this);
      } else if (s == 0 && state.compareAndSet(0, RETIRED)) {
        closeRetired();
      }
    }
  }

  private void closeIfRetiring() {
    synchronized (this) {
      if (state.compareAndSet(0, RETIRED)) {
        try {
          closeRetired();
        } catch (IOException e) {
          LOG.warn("closing a retired file failed handle={}", this, e);
        }
      }
    }
  }

  /** Under the monitor, after the state became RETIRED from OPEN(0). */
  private void closeRetired() throws IOException {
    try {
      closeFiles();
    } finally {
      pool.onClosed(this);
      pool.forget(this);
    }
  }

  /** The pool's sweeper; under the monitor. */
  final Sweep sweep() {
    int s = state.get();
    if (s < 0) {
      return Sweep.GONE;
    }
    if (s > 0) {
      return Sweep.KEPT;
    }
    if (referenced) {
      referenced = false;
      return Sweep.KEPT;
    }
    if (!state.compareAndSet(0, CLOSED)) {
      return Sweep.KEPT; // pinned just now
    }
    try {
      closeFiles();
    } catch (IOException e) {
      LOG.warn("closing an idle file failed handle={}", this, e);
    } finally {
      pool.onClosed(this);
    }
    return Sweep.CLOSED;
  }
}
