package io.brook.controller.quorum;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the wait of a closing Raft server for its log worker thread.
 *
 * <p>Ratis 3.3's segmented log worker takes its tasks from a queue with a fixed one-second poll
 * timeout and checks its {@code running} flag only when that poll returns; closing the log clears
 * the flag but does not wake it. Every stop of a node (a broker shutdown, a restart, each embedded
 * node of the test suite) therefore waited up to a second doing nothing. While a server closes,
 * this watches each of its log workers: once the flag is cleared (the log is closed, nothing more
 * can be queued) and the worker is parked in that poll, it interrupts the worker, which exits its
 * loop at once, as it would have when the poll timed out. A worker that is writing or flushing is
 * never interrupted (an interrupt would close its file channel). The flag is private to Ratis and
 * read reflectively: should a Ratis upgrade rename it, nothing is woken, a close waits as long as
 * before, and a warning says why.
 */
final class LogWorkerWakeup implements AutoCloseable {
  /** The suffix Ratis gives the worker thread's name, after the group member id. */
  private static final String WORKER_SUFFIX = "-SegmentedRaftLogWorker";

  private static final long CHECK_EVERY_MS = 2;

  /** A log worker thread and a reader of its {@code running} flag. */
  private record Watched(Thread worker, BooleanSupplier running) {}

  private static final Logger log = LoggerFactory.getLogger(LogWorkerWakeup.class);

  private final Thread watcher;

  private LogWorkerWakeup(List<Watched> watched) {
    this.watcher = new Thread(() -> watch(watched), "raft-log-worker-wakeup");
    watcher.setDaemon(true);
  }

  /** Starts watching the logs of every group of {@code server}; close it after the server. */
  static LogWorkerWakeup start(RaftServer server) {
    List<Watched> watched = new ArrayList<>();
    List<Thread> threads = new ArrayList<>(Thread.getAllStackTraces().keySet());
    for (RaftGroupId group : server.getGroupIds()) {
      RaftServer.Division division;
      try {
        division = server.getDivision(group);
      } catch (IOException e) {
        continue; // not (or no longer) a member of that group: no log of its own to wait for
      }
      BooleanSupplier running = runningFlag(division.getRaftLog());
      if (running == null) {
        log.warn(
            "Cannot read the running flag of the Raft log worker of {} (another Ratis version?):"
                + " stopping waits for its poll to time out",
            division.getMemberId());
      }
      String workerName = division.getMemberId() + WORKER_SUFFIX;
      for (Thread thread : threads) {
        if (running != null && thread.getName().equals(workerName) && thread.isAlive()) {
          watched.add(new Watched(thread, running));
        }
      }
    }
    LogWorkerWakeup wakeup = new LogWorkerWakeup(watched);
    if (!watched.isEmpty()) {
      wakeup.watcher.start();
    }
    return wakeup;
  }

  private static void watch(List<Watched> watched) {
    List<Watched> pending = new ArrayList<>(watched);
    try {
      while (!pending.isEmpty()) {
        pending.removeIf(LogWorkerWakeup::wakeIfIdleAfterClose);
        Thread.sleep(CHECK_EVERY_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the server finished closing: nothing left to do
    }
  }

  /** True once the worker needs no more watching (woken, or already gone). */
  private static boolean wakeIfIdleAfterClose(Watched w) {
    if (!w.worker().isAlive()) {
      return true;
    }
    // Stopping: no task can be queued any more, so a worker parked now waits in the empty poll.
    if (!w.running().getAsBoolean() && w.worker().getState() == Thread.State.TIMED_WAITING) {
      w.worker().interrupt();
      return true;
    }
    return false;
  }

  /**
   * Reads the {@code running} flag of the worker of a segmented log, or null when the log is of
   * another kind or Ratis's fields changed.
   */
  static BooleanSupplier runningFlag(RaftLog log) {
    try {
      Field workerField = log.getClass().getDeclaredField("fileLogWorker");
      workerField.setAccessible(true);
      Object worker = workerField.get(log);
      Field runningField = worker.getClass().getDeclaredField("running");
      runningField.setAccessible(true);
      return () -> {
        try {
          return runningField.getBoolean(worker);
        } catch (IllegalAccessException e) {
          return true;
        }
      };
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  @Override
  public void close() {
    watcher.interrupt();
  }
}
