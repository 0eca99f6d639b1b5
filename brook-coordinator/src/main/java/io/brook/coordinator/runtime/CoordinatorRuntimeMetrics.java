package io.brook.coordinator.runtime;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a coordinator runtime counts: records its loads skipped, loads that failed, and requests its
 * full queues refused. Cumulative since start; the per-state partition counts and queue sizes are
 * read from the runtime when asked ({@link CoordinatorRuntime#partitionCount(boolean)}...).
 */
public final class CoordinatorRuntimeMetrics {
  private final LongAdder loadSkippedRecords = new LongAdder();
  private final LongAdder loadFailures = new LongAdder();
  private final LongAdder rejectedRequests = new LongAdder();

  void recordSkipped(long records) {
    loadSkippedRecords.add(records);
  }

  void recordLoadFailure() {
    loadFailures.increment();
  }

  void recordRejected() {
    rejectedRequests.increment();
  }

  /** Records (and unreadable batch tails) loading skipped, over every load since start. */
  public long loadSkippedRecords() {
    return loadSkippedRecords.sum();
  }

  /**
   * Loads that failed (each failed attempt of a shard counts, and each shard failed by an Error).
   */
  public long loadFailures() {
    return loadFailures.sum();
  }

  /** Requests answered COORDINATOR_NOT_AVAILABLE because their thread's queue was full. */
  public long rejectedRequests() {
    return rejectedRequests.sum();
  }
}
