package io.brook.protocol.sasl;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that run the server side of SASL exchanges: every {@code SaslServer} step (SCRAM's
 * credential lookup, HMACs and hashes, PLAIN's callback handler, and any custom callback handler,
 * which may well block on a directory or a database) runs here, never on a Netty event loop, so a
 * burst of logins or one slow credential check does not hold up the other connections of a loop.
 *
 * <p>Bounded: {@link #THREADS} threads (idle ones stop after a minute) and a queue of {@link
 * #QUEUED} steps; a step that finds the queue full is refused ({@link
 * java.util.concurrent.RejectedExecutionException}) and its authentication fails, so a flood of
 * handshakes costs bounded memory. Shared by the listeners of the process.
 */
final class SaslWorkers {
  /** At most four, at most the machine's processors: the steps are mostly CPU. */
  static final int THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

  static final int QUEUED = 1024;

  private static final ThreadPoolExecutor POOL = pool();

  private SaslWorkers() {}

  static Executor executor() {
    return POOL;
  }

  private static ThreadPoolExecutor pool() {
    AtomicInteger index = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            1,
            TimeUnit.MINUTES,
            new ArrayBlockingQueue<>(QUEUED),
            runnable -> {
              Thread thread = new Thread(runnable, "brook-sasl-server-" + index.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}
