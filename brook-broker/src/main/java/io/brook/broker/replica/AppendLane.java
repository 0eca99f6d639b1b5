package io.brook.broker.replica;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
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
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private final AtomicInteger pending = new AtomicInteger();
  private boolean draining;

  /** Whether no append of this partition is waiting or running off the loop. */
  boolean idle() {
    return pending.get() == 0;
  }

  /** Queues {@code work} behind this partition's earlier off-loop appends. */
  <T> CompletableFuture<T> submit(Supplier<T> work, DiskWork disk) {
    if (!disk.tryReserve()) {
      return CompletableFuture.failedFuture(DiskWork.full());
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    pending.incrementAndGet();
    Runnable task =
        () -> {
          try {
            DiskWork.complete(result, work);
          } finally {
            pending.decrementAndGet();
            disk.release();
          }
        };
    boolean start;
    synchronized (this) {
      queue.addLast(task);
      start = !draining;
      draining = true;
    }
    if (start) {
      disk.execute(this::drain);
    }
    return result;
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (this) {
        next = queue.pollFirst();
        if (next == null) {
          draining = false;
          return;
        }
      }
      next.run();
    }
  }
}
