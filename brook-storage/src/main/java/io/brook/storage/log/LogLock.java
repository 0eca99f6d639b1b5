package io.brook.storage.log;

import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock that serializes a log's appends, rolls, truncations, log-start moves and cleaner swaps,
 * and the flag that tells a non-blocking append whether waiting for it would mean waiting for the
 * disk.
 *
 * <p>Appends hold the lock only for a copy into the page cache, so waiting behind another append is
 * fine even on an event loop; a holder doing disk work (a roll, retention, a truncation, a swap)
 * runs it through {@link #diskWork}, and a non-blocking append that finds the lock taken while the
 * flag is up hands off instead of waiting.
 */
final class LogLock {
  private final ReentrantLock lock = new ReentrantLock();

  /** True while a holder of {@link #lock} works on the disk; nested work keeps it up. */
  private volatile boolean diskWorkUnderLock;

  void lock() {
    lock.lock();
  }

  void unlock() {
    lock.unlock();
  }

  /** Takes the lock; false, without it, if the caller may not block and disk work holds it. */
  boolean lockUnlessDiskWork(boolean mayBlock) {
    if (mayBlock) {
      lock.lock();
      return true;
    }
    if (lock.tryLock()) {
      return true;
    }
    if (diskWorkUnderLock) {
      return false;
    }
    lock.lock();
    return true;
  }

  /**
   * Runs disk work under the lock (which the caller holds), flagged for non-blocking appends.
   * Nested calls keep the flag until the outermost one ends.
   */
  <T> T diskWork(IoSupplier<T> work) throws IOException {
    boolean outer = diskWorkUnderLock;
    diskWorkUnderLock = true;
    try {
      return work.get();
    } finally {
      diskWorkUnderLock = outer;
    }
  }

  @FunctionalInterface
  interface IoSupplier<T> {
    T get() throws IOException;
  }
}
