package io.brook.coordinator.runtime;

/**
 * Keyed timers of one shard. Scheduling a key that is pending replaces it, which is how session and
 * rebalance deadlines are pushed back. Tasks run on the shard's thread; a task of an unloaded shard
 * never runs.
 */
public interface ShardTimer {
  void schedule(String key, long delayMs, Runnable task);

  /** Cancels the pending task of {@code key}, if any. */
  void cancel(String key);

  boolean isScheduled(String key);
}
