package io.brook.coordinator.runtime;

import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.log.CoordinatorLog;
import io.brook.coordinator.log.CoordinatorLogs;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a coordinator as one shard per partition of its topic that this broker leads. A shard is
 * created and loaded from its partition when this broker becomes its leader and dropped when it
 * stops being leader, so coordination moves with partition leadership.
 *
 * <p>Each shard is pinned to one of a few single-threaded executors ({@code
 * group.coordinator.threads}); all of a shard's work, timers included, runs there in order, so
 * shards need no locks. Nothing on those threads blocks: writes return futures completed when the
 * high watermark passes them. Each thread admits at most {@link #MAX_QUEUED_REQUESTS_PER_THREAD}
 * waiting requests; more are answered COORDINATOR_NOT_AVAILABLE.
 *
 * <p>A shard whose load fails (or which an Error leaves in doubt) is marked failed, answers
 * COORDINATOR_NOT_AVAILABLE and is loaded again after a backoff, for as long as this broker leads
 * its partition; {@link #metrics()} counts failures and the records loading skipped.
 */
public final class CoordinatorRuntime<S extends CoordinatorShard> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CoordinatorRuntime.class);

  /**
   * Requests that may wait for one coordinator thread. Kafka's runtime has no bound (and no
   * setting); Brook's is a constant, far above what a healthy coordinator ever queues.
   */
  public static final int MAX_QUEUED_REQUESTS_PER_THREAD = 10_000;

  /** The first retry of a failed load waits this long; each further one twice as long. */
  static final long LOAD_RETRY_BACKOFF_MS = 1_000;

  /** The longest wait between two attempts to load a failed shard. */
  static final long LOAD_RETRY_MAX_BACKOFF_MS = 60_000;

  private final String topic;
  private final CoordinatorLogs logs;
  private final Function<ShardContext, S> shardFactory;
  private final Time time;
  private final long commitTimeoutMs;
  private final int loadBufferBytes;
  private final ShardExecutor[] threads;
  private final CoordinatorRuntimeMetrics metrics = new CoordinatorRuntimeMetrics();
  private final Map<Integer, ShardHandle<S>> shards = new ConcurrentHashMap<>();
  private final Supplier<MetadataImage> image;

  /**
   * @param topic the coordinator topic, e.g. {@code __consumer_offsets}
   * @param logs the partitions of the topic this broker leads
   * @param image the broker's current metadata
   * @param shardFactory builds an empty shard for a partition
   * @param numThreads the executors shards are spread over
   * @param commitTimeoutMs how long a write may wait to commit ({@code offsets.commit.timeout.ms})
   * @param loadBufferBytes read size while loading ({@code offsets.load.buffer.size})
   */
  public CoordinatorRuntime(
      String topic,
      CoordinatorLogs logs,
      Supplier<MetadataImage> image,
      Function<ShardContext, S> shardFactory,
      Time time,
      int numThreads,
      long commitTimeoutMs,
      int loadBufferBytes) {
    this(
        topic,
        logs,
        image,
        shardFactory,
        time,
        numThreads,
        commitTimeoutMs,
        loadBufferBytes,
        MAX_QUEUED_REQUESTS_PER_THREAD);
  }

  CoordinatorRuntime(
      String topic,
      CoordinatorLogs logs,
      Supplier<MetadataImage> image,
      Function<ShardContext, S> shardFactory,
      Time time,
      int numThreads,
      long commitTimeoutMs,
      int loadBufferBytes,
      int maxQueuedRequestsPerThread) {
    this.topic = topic;
    this.logs = logs;
    this.image = image;
    this.shardFactory = shardFactory;
    this.time = time;
    this.commitTimeoutMs = commitTimeoutMs;
    this.loadBufferBytes = loadBufferBytes;
    this.threads = new ShardExecutor[Math.max(1, numThreads)];
    for (int i = 0; i < threads.length; i++) {
      threads[i] =
          new ShardExecutor("brook-coordinator-" + topic + "-" + i, maxQueuedRequestsPerThread);
    }
  }

  public String topic() {
    return topic;
  }

  /** The partition of the coordinator topic that owns {@code key}: abs(hash(key)) % count. */
  public static int partitionFor(String key, int partitionCount) {
    return InternalTopic.partitionFor(key, partitionCount);
  }

  /** The broker's current metadata. */
  public MetadataImage image() {
    return image.get();
  }

  /** The coordinator topic's partition count in the current metadata, if the topic exists. */
  public Optional<Integer> partitionCount() {
    return image.get().topic(topic).map(t -> t.partitions().size());
  }

  /**
   * Runs {@code op} on the shard of {@code partition}.
   *
   * @return fails with NOT_COORDINATOR if this broker does not lead the partition and
   *     COORDINATOR_LOAD_IN_PROGRESS while it is loading
   */
  public <T> CompletableFuture<T> run(int partition, Function<S, CompletableFuture<T>> op) {
    ShardHandle<S> handle = shards.get(partition);
    if (handle == null) {
      return CompletableFuture.failedFuture(
          new NotCoordinatorException(
              "this broker is not the coordinator for partition " + partition + " of " + topic));
    }
    if (!logs.leadershipsCurrent()) {
      // Its state may be older than the coordinator that took over while this broker was cut off
      // from the controller (or frozen): a client told this finds the current coordinator.
      return CompletableFuture.failedFuture(
          new NotCoordinatorException(
              "this broker has not heard from the controller for a session timeout and may no"
                  + " longer coordinate partition "
                  + partition
                  + " of "
                  + topic));
    }
    return handle.run(op);
  }

  /** Runs {@code op} on every active shard; for listings that span all groups. */
  public <T> List<CompletableFuture<T>> runOnAll(Function<S, CompletableFuture<T>> op) {
    List<CompletableFuture<T>> results = new ArrayList<>();
    if (!logs.leadershipsCurrent()) {
      return results; // listed by the brokers that coordinate them now
    }
    for (ShardHandle<S> handle : shards.values()) {
      if (handle.state() == ShardHandle.State.ACTIVE) {
        results.add(handle.run(op));
      }
    }
    return results;
  }

  /** Whether the shard of {@code partition} is loaded here. */
  public boolean isActive(int partition) {
    ShardHandle<S> handle = shards.get(partition);
    return handle != null && handle.state() == ShardHandle.State.ACTIVE;
  }

  public CoordinatorRuntimeMetrics metrics() {
    return metrics;
  }

  /** Partitions of this runtime's topic in {@code state} here: loading, active or failed. */
  public int partitionCount(String state) {
    ShardHandle.State wanted = ShardHandle.State.valueOf(state.toUpperCase(java.util.Locale.ROOT));
    int count = 0;
    for (ShardHandle<S> handle : shards.values()) {
      count += handle.state() == wanted ? 1 : 0;
    }
    return count;
  }

  /** Tasks waiting on every coordinator thread of this runtime (Kafka's event-queue-size). */
  public int eventQueueSize() {
    int size = 0;
    for (ShardExecutor thread : threads) {
      size += thread.queueSize();
    }
    return size;
  }

  /**
   * Loads shards for partitions this broker now leads and drops those it no longer leads. Call
   * after the replica manager applied {@code image}.
   */
  public synchronized void onMetadata(MetadataImage image) {
    Optional<TopicImage> topicImage = image.topic(topic);
    int count = topicImage.map(t -> t.partitions().size()).orElse(0);
    for (int p = 0; p < count; p++) {
      TopicPartition tp = new TopicPartition(topic, p);
      OptionalInt leaderEpoch = logs.leaderEpoch(tp);
      ShardHandle<S> existing = shards.get(p);
      if (leaderEpoch.isPresent()) {
        int epoch = leaderEpoch.getAsInt();
        if (existing == null || existing.leaderEpoch() != epoch) {
          unload(p);
          load(logs.open(tp, epoch));
        }
      } else if (existing != null) {
        unload(p);
      }
    }
    for (Integer p : List.copyOf(shards.keySet())) {
      if (p >= count) {
        unload(p);
      }
    }
    for (ShardHandle<S> handle : shards.values()) {
      if (handle.state() == ShardHandle.State.ACTIVE) {
        handle.runInternal(shard -> shard.onMetadata(image));
      }
    }
  }

  private void load(CoordinatorLog log) {
    TopicPartition tp = log.topicPartition();
    ShardExecutor thread = threads[tp.partition() % threads.length];
    ShardHandle<S> handle =
        new ShardHandle<>(log, thread, image, time, commitTimeoutMs, metrics, this::onShardFailed);
    shards.put(tp.partition(), handle);
    thread.execute(() -> attemptLoad(handle, 0));
  }

  /**
   * Loads {@code handle}'s shard afresh on its thread. Whatever goes wrong (the log cannot be read,
   * the shard cannot start, any Error) marks it failed and schedules another attempt, so a shard is
   * never left silently unloaded while this broker leads its partition.
   */
  private void attemptLoad(ShardHandle<S> handle, int failures) {
    if (handle.state() == ShardHandle.State.CLOSED
        || shards.get(handle.topicPartition().partition()) != handle) {
      return;
    }
    TopicPartition tp = handle.topicPartition();
    long started = time.milliseconds();
    try {
      S shard = shardFactory.apply(handle);
      handle.startLoading(shard);
      ShardLoader.Result result = ShardLoader.load(handle.log(), shard, loadBufferBytes);
      metrics.recordSkipped(result.skipped());
      shard.onLoaded();
      handle.activate();
      log.info(
          "Loaded coordinator shard topicPartition={} leaderEpoch={} records={} skipped={}"
              + " durationMs={}",
          tp,
          handle.leaderEpoch(),
          result.replayed(),
          result.skipped(),
          time.milliseconds() - started);
    } catch (Throwable t) {
      handle.fail();
      metrics.recordLoadFailure();
      long backoff =
          Math.min(LOAD_RETRY_MAX_BACKOFF_MS, LOAD_RETRY_BACKOFF_MS << Math.min(failures, 16));
      log.error(
          "Loading coordinator shard failed, retrying topicPartition={} leaderEpoch={} attempt={}"
              + " retryInMs={}",
          tp,
          handle.leaderEpoch(),
          failures + 1,
          backoff,
          t);
      handle.thread().schedule(() -> attemptLoad(handle, failures + 1), backoff);
    }
  }

  /** An Error left an active shard in doubt: drop its state and load it again from the log. */
  private void onShardFailed(ShardHandle<?> failed, Throwable error) {
    ShardHandle<S> handle = shards.get(failed.topicPartition().partition());
    if (handle != failed) {
      return;
    }
    handle.fail();
    metrics.recordLoadFailure();
    log.error(
        "A coordinator shard failed while serving, reloading it topicPartition={} leaderEpoch={}",
        handle.topicPartition(),
        handle.leaderEpoch(),
        error);
    handle.thread().execute(() -> attemptLoad(handle, 0));
  }

  private void unload(int partition) {
    ShardHandle<S> handle = shards.remove(partition);
    if (handle != null) {
      handle.close();
      log.info("Unloaded coordinator shard topic={} partition={}", topic, partition);
    }
  }

  /** A client connection closed: each active shard is told, on its thread. */
  public void onConnectionClosed(String connectionId) {
    for (ShardHandle<S> handle : shards.values()) {
      if (handle.state() == ShardHandle.State.ACTIVE) {
        // Through the bounded queue: clients decide how often connections close. Should it be
        // full, the members of the connection are found out by their session timeouts instead.
        handle.run(
            shard -> {
              shard.onConnectionClosed(connectionId);
              return CompletableFuture.completedFuture(null);
            });
      }
    }
  }

  /** Drops every shard and stops the threads, letting queued work finish briefly. */
  @Override
  public synchronized void close() {
    for (Integer p : List.copyOf(shards.keySet())) {
      unload(p);
    }
    for (ShardExecutor thread : threads) {
      thread.shutdown();
    }
    for (ShardExecutor thread : threads) {
      try {
        if (!thread.awaitTermination(5_000)) {
          thread.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        thread.shutdownNow();
      }
    }
  }
}
