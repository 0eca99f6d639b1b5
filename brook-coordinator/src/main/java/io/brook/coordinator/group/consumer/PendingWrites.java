package io.brook.coordinator.group.consumer;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;

/**
 * The writes of one operation, done step by step: each step's records are replayed when written, so
 * the next step reads the state they made. The operation answers once all are committed.
 */
final class PendingWrites {
  private final ShardContext context;
  private final List<CompletableFuture<Void>> committed = new ArrayList<>();

  PendingWrites(ShardContext context) {
    this.context = context;
  }

  /**
   * Appends and replays {@code records}.
   *
   * @throws ApiException if the append is refused at once (nothing was replayed)
   */
  void write(List<CoordinatorRecord> records) {
    if (records.isEmpty()) {
      return;
    }
    CompletableFuture<Void> future = context.write(records);
    if (future.isCompletedExceptionally()) {
      Throwable error = CoordinatorErrors.unwrap(future.handle((v, e) -> e).getNow(null));
      if (error instanceof ApiException api) {
        throw api;
      }
      throw new CoordinatorNotAvailableException("coordinator write failed: " + error);
    }
    committed.add(future);
  }

  /** Completes once every write is committed; fails with the first failure. */
  CompletableFuture<Void> allCommitted() {
    return CompletableFuture.allOf(committed.toArray(CompletableFuture[]::new));
  }
}
