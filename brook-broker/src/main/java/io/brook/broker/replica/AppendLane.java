package io.brook.broker.replica;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Keeps one partition's off-loop appends in arrival order. A connection's requests are handled one
 * after another on its event loop, so once one of its appends to a partition is handed to {@link
 * DiskWork}, every later append to that partition must queue behind it rather than run inline on
 * the loop and overtake it. The lane runs its queue on one pool thread at a time; appends from
 * different connections meet at the log's lock as before. Each queued append holds one of the
 * pool's places, which bounds the queue.
 */
final class AppendLane {
  private final ArrayDeque<Queued<?>> queue = new ArrayDeque<>();
  private final AtomicInteger pending = new AtomicInteger();
  private boolean draining;

  /** One append waiting in the lane, with the future its caller holds. */
  private final class Queued<T> {
    private final Supplier<T> work;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private final DiskWork disk;

    Queued(Supplier<T> work, DiskWork disk) {
      this.work = work;
      this.disk = disk;
    }

    void run() {
      try {
        DiskWork.complete(result, work);
      } finally {
        done();
      }
    }

    void fail(Throwable cause) {
      result.completeExceptionally(cause);
      done();
    }

    private void done() {
      pending.decrementAndGet();
      disk.release();
    }
  }

  /** Whether no append of this partition is waiting or running off the loop. */
  boolean idle() {
    return pending.get() == 0;
  }

  /** Queues {@code work} behind this partition's earlier off-loop appends. */
  <T> CompletableFuture<T> submit(Supplier<T> work, DiskWork disk) {
    if (!disk.tryReserve()) {
      return CompletableFuture.failedFuture(DiskWork.full());
    }
    Queued<T> queued = new Queued<>(work, disk);
    pending.incrementAndGet();
    boolean start;
    synchronized (this) {
      queue.addLast(queued);
      start = !draining;
      draining = true;
    }
    if (start) {
      try {
        disk.execute(this::drain);
      } catch (RejectedExecutionException e) {
        // The pool is shut down (the broker is stopping): fail what waits here, never strand it.
        failAll(e);
      }
    }
    return queued.result;
  }

  private void drain() {
    Queued<?> next;
    while ((next = poll()) != null) {
      next.run();
    }
  }

  private void failAll(Throwable cause) {
    Queued<?> next;
    while ((next = poll()) != null) {
      next.fail(cause);
    }
  }

  /** The next queued append, or null (and the lane stops draining) when there is none. */
  private synchronized Queued<?> poll() {
    Queued<?> next = queue.pollFirst();
    if (next == null) {
      draining = false;
    }
    return next;
  }
}
