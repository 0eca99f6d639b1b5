package io.brook.coordinator.runtime;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.log.CoordinatorLog;
import io.brook.metadata.image.MetadataImage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded (or loading, or failed) shard: its partition, leader epoch, thread and timers.
 * Everything but {@link #state} is touched only on the shard's thread.
 *
 * <p>The shard replays its own writes as it appends them, before they commit, so the next request
 * sees them at once; its answer, though, waits until the high watermark reaches everything the
 * state held when it was computed (Kafka's runtime answers from its last committed snapshot, or
 * defers a write that wrote nothing until earlier writes commit). An answer therefore never tells a
 * client of state a failover can still take back: an offset commit still replicating, seen by an
 * OffsetFetch, is answered only once committed, or not at all if the leader loses it.
 *
 * <p>Whatever a request, a timer or a continuation throws stays on the shard: a RuntimeException
 * fails that request (or is logged), and an Error (a stack or heap exhausted halfway through
 * changing the shard) fails the shard, which the runtime then reloads from its log; the thread
 * lives on either way.
 */
final class ShardHandle<S extends CoordinatorShard> implements ShardContext, ShardTimer {
  private static final Logger log = LoggerFactory.getLogger(ShardHandle.class);

  enum State {
    LOADING,
    ACTIVE,
    /** Loading failed, or an Error left the shard in doubt: a reload is scheduled. */
    FAILED,
    CLOSED
  }

  /** Told, on the shard's thread, that an Error failed an active shard; it reloads the shard. */
  interface FailureListener {
    void onShardFailed(ShardHandle<?> handle, Throwable error);
  }

  private final TopicPartition topicPartition;
  private final int leaderEpoch;
  private final ShardExecutor thread;
  private final CoordinatorLog partitionLog;
  private final Supplier<MetadataImage> image;
  private final Time time;
  private final long commitTimeoutMs;
  private final CoordinatorRuntimeMetrics metrics;
  private final FailureListener onFailure;
  private final Map<String, ScheduledFuture<?>> timers = new HashMap<>();
  private volatile State state = State.LOADING;
  private S shard;

  /**
   * The offset after the last record the shard's state holds: the log end when it was loaded, then
   * the end of each append. Touched only on the shard's thread.
   */
  private long stateEnd;

  ShardHandle(
      CoordinatorLog log,
      ShardExecutor thread,
      Supplier<MetadataImage> image,
      Time time,
      long commitTimeoutMs,
      CoordinatorRuntimeMetrics metrics,
      FailureListener onFailure) {
    this.topicPartition = log.topicPartition();
    this.leaderEpoch = log.leaderEpoch();
    this.thread = thread;
    this.partitionLog = log;
    this.image = image;
    this.time = time;
    this.commitTimeoutMs = commitTimeoutMs;
    this.metrics = metrics;
    this.onFailure = onFailure;
  }

  TopicPartition topicPartition() {
    return topicPartition;
  }

  int leaderEpoch() {
    return leaderEpoch;
  }

  ShardExecutor thread() {
    return thread;
  }

  /** The shard's partition log, in this handle's leader epoch. */
  CoordinatorLog log() {
    return partitionLog;
  }

  State state() {
    return state;
  }

  S shard() {
    return shard;
  }

  /** A (re)load starts with a fresh shard; on the shard's thread. */
  void startLoading(S fresh) {
    state = State.LOADING;
    shard = fresh;
  }

  /** The load read the log to its end: the state holds everything up to there. */
  void activate() {
    stateEnd = partitionLog.logEndOffset();
    state = State.ACTIVE;
  }

  /**
   * Drops the shard's state, which is in doubt, and its timers, until a reload; on the shard's
   * thread. Requests meanwhile answer COORDINATOR_NOT_AVAILABLE.
   */
  void fail() {
    if (state == State.CLOSED) {
      return;
    }
    state = State.FAILED;
    cancelTimers();
    S failed = shard;
    shard = null;
    unloadQuietly(failed);
  }

  /**
   * Runs {@code op} on the shard's thread once it is active; fails fast while it is not, and with
   * COORDINATOR_NOT_AVAILABLE when the thread's queue of requests is full.
   */
  <T> CompletableFuture<T> run(Function<S, CompletableFuture<T>> op) {
    ApiException unavailable = unavailable();
    if (unavailable != null) {
      return CompletableFuture.failedFuture(unavailable);
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    boolean queued;
    try {
      queued = thread.tryExecuteRequest(() -> apply(op, result));
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          new NotCoordinatorException("the coordinator of " + topicPartition + " is stopping"));
    }
    if (!queued) {
      metrics.recordRejected();
      // Kafka's runtime does not bound its queue; a request it cannot serve in time times out,
      // which its group coordinator answers as COORDINATOR_NOT_AVAILABLE: retriable everywhere.
      return CompletableFuture.failedFuture(
          new CoordinatorNotAvailableException(
              "the coordinator queue of "
                  + topicPartition
                  + " is full ("
                  + thread.maxQueuedRequests()
                  + " requests wait)"));
    }
    return result;
  }

  /** Runs one of the runtime's own tasks on the shard (metadata updates); never refused. */
  void runInternal(Consumer<S> task) {
    thread.execute(
        () -> {
          if (state == State.ACTIVE) {
            contain("an internal task", () -> task.accept(shard));
          }
        });
  }

  private <T> void apply(Function<S, CompletableFuture<T>> op, CompletableFuture<T> result) {
    ApiException stillUnavailable = unavailable();
    if (stillUnavailable != null) {
      result.completeExceptionally(stillUnavailable);
      return;
    }
    try {
      CompletableFuture<T> answer = op.apply(shard);
      long computedAt = stateEnd;
      answer.whenComplete(
          (value, error) -> {
            if (error != null) {
              result.completeExceptionally(error);
            } else {
              committed(computedAt).whenComplete((v, lost) -> complete(result, value, lost));
            }
          });
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
    } catch (Error e) {
      result.completeExceptionally(
          new CoordinatorNotAvailableException(
              "the coordinator of " + topicPartition + " failed and is reloading"));
      failed(e);
    }
  }

  /** Runs {@code task} on the shard's thread: a RuntimeException is logged, an Error fails it. */
  private void contain(String what, Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      log.error("A coordinator {} failed topicPartition={}", what, topicPartition, e);
    } catch (Error e) {
      failed(e);
    }
  }

  private void failed(Error e) {
    if (state == State.ACTIVE) {
      onFailure.onShardFailed(this, e);
    } else {
      log.error("A coordinator shard not active failed topicPartition={}", topicPartition, e);
    }
  }

  private ApiException unavailable() {
    return switch (state) {
      case LOADING ->
          new CoordinatorLoadInProgressException(topicPartition + " is still being loaded");
      case FAILED ->
          new CoordinatorNotAvailableException(
              "the coordinator of " + topicPartition + " failed to load and retries");
      case CLOSED -> new NotCoordinatorException("this broker no longer leads " + topicPartition);
      case ACTIVE -> null;
    };
  }

  private static <T> void complete(CompletableFuture<T> target, T value, Throwable error) {
    if (error != null) {
      target.completeExceptionally(error);
    } else {
      target.complete(value);
    }
  }

  /**
   * Completes once the high watermark reaches {@code end}: at once when it already has (nothing the
   * answer saw is still replicating), and with NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE if this
   * broker loses the partition or the records do not commit in time.
   */
  private CompletableFuture<Void> committed(long end) {
    try {
      if (partitionLog.highWatermark() >= end) {
        return CompletableFuture.completedFuture(null);
      }
      return partitionLog
          .awaitCommitted(end, commitTimeoutMs)
          .exceptionallyCompose(
              e -> {
                Throwable cause =
                    e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
                return CompletableFuture.failedFuture(
                    coordinatorError(Errors.forException(cause), cause.getMessage()));
              });
    } catch (ApiException e) {
      return CompletableFuture.failedFuture(
          coordinatorError(Errors.forException(e), e.getMessage()));
    }
  }

  /** Marks the shard closed and, on its thread, cancels its timers and tells it. */
  void close() {
    state = State.CLOSED;
    try {
      thread.execute(
          () -> {
            cancelTimers();
            unloadQuietly(shard);
          });
    } catch (RejectedExecutionException e) {
      log.debug("Coordinator thread already stopped topicPartition={}", topicPartition);
    }
  }

  private void cancelTimers() {
    timers.values().forEach(t -> t.cancel(false));
    timers.clear();
  }

  private void unloadQuietly(S unloaded) {
    if (unloaded == null) {
      return;
    }
    try {
      unloaded.onUnloaded();
    } catch (RuntimeException | Error e) {
      log.error("Unloading a coordinator shard failed topicPartition={}", topicPartition, e);
    }
  }

  // ShardContext

  @Override
  public int partition() {
    return topicPartition.partition();
  }

  @Override
  public long nowMs() {
    return time.milliseconds();
  }

  @Override
  public ShardTimer timer() {
    return this;
  }

  @Override
  public Executor executor() {
    return thread.asExecutor();
  }

  @Override
  public MetadataImage image() {
    return image.get();
  }

  @Override
  public CompletableFuture<Void> write(List<CoordinatorRecord> records) {
    if (records.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return append(
        () -> partitionLog.append(records, time.milliseconds()),
        firstOffset -> {
          long offset = firstOffset;
          for (CoordinatorRecord record : records) {
            shard.replay(record, offset++);
          }
        });
  }

  @Override
  public CompletableFuture<Void> writeTransactional(
      List<CoordinatorRecord> records, long producerId, short producerEpoch) {
    if (records.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return append(
        () ->
            partitionLog.appendTransactional(
                records, time.milliseconds(), producerId, producerEpoch),
        firstOffset -> {
          long offset = firstOffset;
          for (CoordinatorRecord record : records) {
            shard.replay(record, offset++, producerId, producerEpoch);
          }
        });
  }

  @Override
  public CompletableFuture<Void> writeMarker(
      long producerId, short producerEpoch, int coordinatorEpoch, TxnResult result) {
    return append(
        () ->
            partitionLog.appendMarker(
                time.milliseconds(), producerId, producerEpoch, coordinatorEpoch, result),
        firstOffset -> shard.replayEndTransactionMarker(producerId, producerEpoch, result));
  }

  /**
   * Appends one batch as leader (through {@code appendBatch}), replays it from its first offset and
   * waits for it to commit.
   */
  private CompletableFuture<Void> append(
      Supplier<CoordinatorLog.Appended> appendBatch, LongConsumer replay) {
    CoordinatorLog.Appended info;
    try {
      if (state == State.CLOSED) {
        throw new NotCoordinatorException("this broker no longer leads " + topicPartition);
      }
      if (state == State.FAILED) {
        // A continuation of the failed shard: its state is gone, the reload reads the log.
        throw new CoordinatorNotAvailableException(topicPartition + " failed and is reloading");
      }
      info = appendBatch.get();
    } catch (ApiException e) {
      return CompletableFuture.failedFuture(
          coordinatorError(Errors.forException(e), e.getMessage()));
    }
    if (info.duplicate()) {
      // The log took the batch for a retry of an earlier one and wrote nothing: replaying it
      // would put state in memory that the log does not have.
      return CompletableFuture.failedFuture(
          new UnknownServerException(
              "the log took a coordinator write to " + topicPartition + " for a duplicate"));
    }
    replay.accept(info.firstOffset());
    stateEnd = info.lastOffset() + 1;
    try {
      return partitionLog.awaitCommitted(info.lastOffset() + 1, commitTimeoutMs);
    } catch (ApiException e) {
      return CompletableFuture.failedFuture(
          coordinatorError(Errors.forException(e), e.getMessage()));
    }
  }

  /** What a failed coordinator write means to a client (as Kafka maps it). */
  private static ApiException coordinatorError(Errors error, String message) {
    return switch (error) {
      case NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION ->
          new NotCoordinatorException(message);
      case NOT_ENOUGH_REPLICAS,
          NOT_ENOUGH_REPLICAS_AFTER_APPEND,
          REQUEST_TIMED_OUT,
          KAFKA_STORAGE_ERROR ->
          new CoordinatorNotAvailableException(message);
      default -> error.exception(message);
    };
  }

  // ShardTimer

  @Override
  public void schedule(String key, long delayMs, Runnable task) {
    cancel(key);
    Object[] self = new Object[1];
    ScheduledFuture<?> future =
        thread.schedule(
            () -> {
              if (state != State.ACTIVE || timers.get(key) != self[0]) {
                return;
              }
              timers.remove(key);
              contain("timer " + key, task);
            },
            delayMs);
    self[0] = future;
    timers.put(key, future);
  }

  @Override
  public void cancel(String key) {
    ScheduledFuture<?> pending = timers.remove(key);
    if (pending != null) {
      pending.cancel(false);
    }
  }

  @Override
  public boolean isScheduled(String key) {
    return timers.containsKey(key);
  }
}
