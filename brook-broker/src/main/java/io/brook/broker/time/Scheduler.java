package io.brook.broker.time;

/**
 * Runs tasks later: once after a delay, or periodically. The data plane's only way to wait for
 * time, so a deterministic test or a simulation can drive every timer from a clock it controls
 * ({@link ManualScheduler}) while production runs them on real threads ({@link ExecutorScheduler},
 * {@link DeadlineScheduler}).
 *
 * <p>Delays are in milliseconds of the scheduler's clock. A task runs on whatever thread the
 * implementation uses, never on the caller's inside {@code schedule}.
 */
public interface Scheduler {
  /** A scheduled task. */
  interface Task {
    /**
     * Stops the task from running (again). A run already under way finishes.
     *
     * @return true if this call stopped a run that had not started (for a one-shot task)
     */
    boolean cancel();
  }

  /**
   * Runs {@code task} once, {@code delayMs} from now (0 or less: as soon as possible).
   *
   * @param name what the task is, for logs
   * @throws java.util.concurrent.RejectedExecutionException if the scheduler is shut down
   */
  Task schedule(String name, Runnable task, long delayMs);

  /**
   * Runs {@code task} first {@code initialDelayMs} from now, then {@code periodMs} after each run
   * ends. A run that throws is logged and the task keeps running.
   *
   * @throws java.util.concurrent.RejectedExecutionException if the scheduler is shut down
   */
  Task schedulePeriodic(String name, Runnable task, long initialDelayMs, long periodMs);
}
