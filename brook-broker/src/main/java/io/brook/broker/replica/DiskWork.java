package io.brook.broker.replica;

import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.protocol.metrics.IdleRatio;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * The bounded pool ({@code brook-io-N}, {@code num.io.threads} threads) where request work that may
 * wait for the disk runs instead of on a Netty event loop: appends that roll a segment or fsync,
 * timestamp searches, DeleteRecords, DescribeLogDirs, and the single node's metadata journal
 * writes. Kafka runs all requests on such request-handler threads; Brook keeps the common case (an
 * append that only writes to the page cache, a read) on the event loop and sends only these here.
 *
 * <p>At most {@code queue} tasks are waiting or running; beyond that work is refused with a
 * retriable {@code REQUEST_TIMED_OUT}, so the queue never grows without bound and the client
 * retries.
 */
public final class DiskWork implements AutoCloseable {
  private final ThreadPoolExecutor pool;
  private final Semaphore capacity;

  /** Time the pool's threads spent running tasks, counted when each task ends. */
  private final LongAdder busyNanos = new LongAdder();

  private final long startNanos = System.nanoTime();

  private DiskWork(ThreadPoolExecutor pool, int capacity) {
    this.pool = pool;
    this.capacity = new Semaphore(capacity);
  }

  /** A pool of {@code threads} threads admitting at most {@code queue} waiting or running tasks. */
  public static DiskWork start(int threads, int queue) {
    if (threads < 1 || queue < 1) {
      throw new IllegalArgumentException("threads and queue must be positive");
    }
    AtomicInteger ids = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            // Never fuller than the permits handed out, so the pool itself never refuses.
            new ArrayBlockingQueue<>(queue),
            runnable -> {
              Thread thread = new Thread(runnable, "brook-io-" + ids.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    return new DiskWork(pool, queue);
  }

  /** Runs everything on the caller: for tests and tools that have no event loop to protect. */
  public static DiskWork inline() {
    return new DiskWork(null, Integer.MAX_VALUE);
  }

  /** Runs {@code work} on the pool; fails with a retriable error if the pool is full. */
  public <T> CompletableFuture<T> submit(Supplier<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    if (!tryReserve()) {
      return CompletableFuture.failedFuture(full());
    }
    try {
      executeReserved(() -> complete(result, work));
    } catch (RejectedExecutionException e) {
      // Shut down: the broker is stopping.
      release();
      result.completeExceptionally(e);
    }
    return result;
  }

  /**
   * This pool as an {@link Executor} for {@link CompletableFuture#supplyAsync}: a task it cannot
   * admit is refused with {@link RejectedExecutionException}, whose cause is the retriable error.
   */
  public Executor executor() {
    return task -> {
      if (!tryReserve()) {
        throw new RejectedExecutionException(full());
      }
      try {
        executeReserved(task);
      } catch (RejectedExecutionException e) {
        release();
        throw e;
      }
    };
  }

  /**
   * Takes one of the pool's places for a task that {@link #executeReserved} or an ordered lane
   * runs.
   */
  boolean tryReserve() {
    return capacity.tryAcquire();
  }

  void release() {
    capacity.release();
  }

  /** Runs a task that holds a place; the place is returned when it ends. */
  void executeReserved(Runnable task) {
    execute(
        () -> {
          try {
            task.run();
          } finally {
            release();
          }
        });
  }

  /** Runs {@code task} on the pool (the caller accounts for its place) or, inline, at once. */
  void execute(Runnable task) {
    if (pool == null) {
      task.run();
    } else {
      pool.execute(
          () -> {
            long start = System.nanoTime();
            try {
              task.run();
            } finally {
              busyNanos.add(System.nanoTime() - start);
            }
          });
    }
  }

  /**
   * Publishes Kafka's {@code kafka.server:type=KafkaRequestHandlerPool,name=
   * RequestHandlerAvgIdlePercent} for this pool: Kafka's request handler threads are the threads
   * requests wait for the disk on, here {@code num.io.threads}. The share of the pool's thread time
   * not spent running a task since the previous reading (a task's time counts when it ends); 1 for
   * an inline pool.
   */
  public void registerIdleRatio(BrokerMetrics metrics) {
    int threads = pool == null ? 1 : pool.getMaximumPoolSize();
    IdleRatio idle =
        new IdleRatio(
            () -> threads * (System.nanoTime() - startNanos) - busyNanos.sum(),
            threads,
            System::nanoTime);
    metrics.gauge(
        "kafka.server", "KafkaRequestHandlerPool", "RequestHandlerAvgIdlePercent", idle::read);
  }

  static <T> void complete(CompletableFuture<T> result, Supplier<T> work) {
    try {
      result.complete(work.get());
    } catch (RuntimeException | Error e) {
      result.completeExceptionally(e);
    }
  }

  /** The retriable error for a full pool: the client retries after its backoff. */
  static TimeoutException full() {
    return new TimeoutException("the broker's disk work queue is full; retry");
  }

  @Override
  public void close() {
    if (pool == null) {
      return;
    }
    pool.shutdown();
    try {
      if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
        pool.shutdownNow();
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
