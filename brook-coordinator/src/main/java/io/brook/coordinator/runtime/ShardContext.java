package io.brook.coordinator.runtime;

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
}
