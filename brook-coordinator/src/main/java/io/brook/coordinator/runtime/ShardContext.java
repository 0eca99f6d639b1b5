package io.brook.coordinator.runtime;

import io.brook.coordinator.TxnResult;
import io.brook.metadata.image.MetadataImage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/** What a shard may use, all of it bound to the shard's partition and thread. */
public interface ShardContext {
  /** The partition of the coordinator topic this shard owns. */
  int partition();

  /** Wall-clock milliseconds, from the runtime's clock (mockable in tests). */
  long nowMs();

  /** Timers firing on the shard's thread. */
  ShardTimer timer();

  /** Runs tasks on the shard's thread, in order; for continuing after a future completes. */
  Executor executor();

  /** The latest metadata image this broker applied. */
  MetadataImage image();

  /**
   * Appends records to the shard's partition and replays them into the shard before returning, so
   * the caller reads its own writes at once. Must be called on the shard's thread.
   *
   * @return completes (on some other thread) once the records are committed, that is below the
   *     partition's high watermark; fails with NOT_COORDINATOR if leadership is lost first, or
   *     REQUEST_TIMED_OUT after {@code offsets.commit.timeout.ms}; fails at once with the
   *     coordinator error (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, ...) if the append is
   *     refused, in which case nothing was replayed
   */
  CompletableFuture<Void> write(List<CoordinatorRecord> records);

  /**
   * Like {@link #write}, as one transactional batch of {@code producerId} at {@code producerEpoch}:
   * the records are replayed as the producer's pending writes, which a later {@link #writeMarker}
   * commits or aborts. The partition's producer state checks the epoch, so a fenced producer's
   * write is refused.
   *
   * @return as {@link #write}; fails at once with INVALID_PRODUCER_EPOCH when the producer has been
   *     fenced by a newer epoch, in which case nothing was replayed
   */
  default CompletableFuture<Void> writeTransactional(
      List<CoordinatorRecord> records, long producerId, short producerEpoch) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this shard context does not write transactions"));
  }

  /**
   * Appends a transaction marker (a control batch) for {@code producerId} to the shard's partition
   * and replays it into the shard before returning. Must be called on the shard's thread.
   *
   * @return as {@link #write}
   */
  default CompletableFuture<Void> writeMarker(
      long producerId, short producerEpoch, int coordinatorEpoch, TxnResult result) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this shard context does not write transactions"));
  }
}
