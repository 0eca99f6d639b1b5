package io.brook.storage;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that records which log directories failed, as Kafka's {@code LogDirFailureChannel}:
 * any I/O error from any file of a directory (a segment, an index, a checkpoint, a producer
 * snapshot, the cleaner) takes the whole directory offline, because a disk that failed one write
 * cannot be trusted with the next.
 *
 * <p>Marking is idempotent and cheap: the first report of a directory is logged with its cause and
 * handed to the listeners (which close its logs, stop its fetchers, tell the controller) on one
 * handler thread, never on the thread that hit the error, which may hold a log's lock or be a
 * network thread. Later reports of the same directory do nothing. The handler's queue holds at most
 * one task per directory, so it is bounded by the number of {@code log.dirs}.
 */
public final class LogDirFailureChannel implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LogDirFailureChannel.class);

  private final Set<Path> offline = ConcurrentHashMap.newKeySet();
  private final List<Consumer<Path>> listeners = new CopyOnWriteArrayList<>();
  private final Executor handler;

  /** Null when the handler was given: its owner stops it. */
  private final ExecutorService ownHandler;

  /** Handles failures on a thread of its own. */
  public LogDirFailureChannel() {
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            0,
            1,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            runnable -> {
              Thread thread = new Thread(runnable, "log-dir-failure-handler");
              thread.setDaemon(true);
              return thread;
            });
    this.handler = executor;
    this.ownHandler = executor;
  }

  /**
   * Handles failures on {@code handler}, which must not run a task on the thread that submits it
   * (that thread may hold a log's lock). A deterministic simulation passes its own event loop.
   */
  public LogDirFailureChannel(Executor handler) {
    this.handler = handler;
    this.ownHandler = null;
  }

  /**
   * Records that {@code logDir} failed while doing {@code what}. The first call for a directory
   * logs it and runs the listeners; later ones return at once.
   *
   * @return whether this call took the directory offline (false if it already was)
   */
  public boolean markOffline(Path logDir, String what, Throwable cause) {
    Path dir = logDir.toAbsolutePath().normalize();
    if (!offline.add(dir)) {
      return false;
    }
    log.error(
        "Log directory taken offline after an I/O error dir={} while={}; every partition in it"
            + " stops serving until the broker restarts",
        dir,
        what,
        cause);
    try {
      handler.execute(() -> notifyListeners(dir));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // The node is stopping: nobody is left to tell.
    }
    return true;
  }

  private void notifyListeners(Path dir) {
    for (Consumer<Path> listener : listeners) {
      try {
        listener.accept(dir);
      } catch (RuntimeException e) {
        log.error("Handling the failure of a log directory failed dir={}", dir, e);
      }
    }
  }

  /** Runs {@code listener} on the handler thread for every directory that goes offline. */
  public void addListener(Consumer<Path> listener) {
    listeners.add(listener);
  }

  public boolean isOffline(Path logDir) {
    return offline.contains(logDir.toAbsolutePath().normalize());
  }

  /** The directories offline so far (a snapshot). */
  public Set<Path> offlineDirs() {
    return Set.copyOf(offline);
  }

  public int offlineCount() {
    return offline.size();
  }

  /**
   * Stops its own handler thread (a handler given to it is its owner's to stop); failures reported
   * later are then still recorded, not handled.
   */
  @Override
  public void close() {
    if (ownHandler != null) {
      ownHandler.shutdown();
    }
  }
}
