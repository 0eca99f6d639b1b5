package io.brook.coordinator.runtime;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.ConnectionListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
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
 * high watermark passes them.
 */
public final class CoordinatorRuntime<S extends CoordinatorShard>
    implements ConnectionListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CoordinatorRuntime.class);

  private final String topic;
  private final ReplicaManager replicaManager;
  private final Function<ShardContext, S> shardFactory;
  private final Time time;
  private final long commitTimeoutMs;
  private final int loadBufferBytes;
  private final ScheduledExecutorService[] threads;
  private final Map<Integer, ShardHandle<S>> shards = new ConcurrentHashMap<>();

  /**
   * @param topic the coordinator topic, e.g. {@code __consumer_offsets}
   * @param shardFactory builds an empty shard for a partition
   * @param numThreads the executors shards are spread over
   * @param commitTimeoutMs how long a write may wait to commit ({@code offsets.commit.timeout.ms})
   * @param loadBufferBytes read size while loading ({@code offsets.load.buffer.size})
   */
  public CoordinatorRuntime(
      String topic,
      ReplicaManager replicaManager,
      Function<ShardContext, S> shardFactory,
      Time time,
      int numThreads,
      long commitTimeoutMs,
      int loadBufferBytes) {
    this.topic = topic;
    this.replicaManager = replicaManager;
    this.shardFactory = shardFactory;
    this.time = time;
    this.commitTimeoutMs = commitTimeoutMs;
    this.loadBufferBytes = loadBufferBytes;
    this.threads = new ScheduledExecutorService[Math.max(1, numThreads)];
    for (int i = 0; i < threads.length; i++) {
      String name = "brook-coordinator-" + topic + "-" + i;
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              runnable -> {
                Thread thread = new Thread(runnable, name);
                thread.setDaemon(true);
                return thread;
              });
      executor.setRemoveOnCancelPolicy(true);
      executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      threads[i] = executor;
    }
  }

  public String topic() {
    return topic;
  }

  /** The partition of the coordinator topic that owns {@code key}: abs(hash(key)) % count. */
  public static int partitionFor(String key, int partitionCount) {
    return Utils.abs(key.hashCode()) % partitionCount;
  }

  /** The coordinator topic's partition count in the current metadata, if the topic exists. */
  public Optional<Integer> partitionCount() {
    return replicaManager.image().topic(topic).map(t -> t.partitions().size());
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
    return handle.run(op);
  }

  /** Runs {@code op} on every active shard; for listings that span all groups. */
  public <T> List<CompletableFuture<T>> runOnAll(Function<S, CompletableFuture<T>> op) {
    List<CompletableFuture<T>> results = new ArrayList<>();
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

  /**
   * Loads shards for partitions this broker now leads and drops those it no longer leads. Call
   * after the replica manager applied {@code image}.
   */
  public synchronized void onMetadata(MetadataImage image) {
    Optional<TopicImage> topicImage = image.topic(topic);
    int count = topicImage.map(t -> t.partitions().size()).orElse(0);
    for (int p = 0; p < count; p++) {
      Optional<Partition> partition = replicaManager.partition(new TopicPartition(topic, p));
      ShardHandle<S> existing = shards.get(p);
      if (partition.isPresent() && partition.get().isLeader()) {
        int epoch = partition.get().state().leaderEpoch();
        if (existing == null || existing.leaderEpoch() != epoch) {
          unload(p);
          load(partition.get(), epoch);
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
        handle.run(
            shard -> {
              shard.onMetadata(image);
              return CompletableFuture.completedFuture(null);
            });
      }
    }
  }

  private void load(Partition partition, int leaderEpoch) {
    TopicPartition tp = partition.topicPartition();
    ScheduledExecutorService thread = threads[tp.partition() % threads.length];
    ShardHandle<S> handle =
        new ShardHandle<>(tp, leaderEpoch, thread, replicaManager, time, commitTimeoutMs);
    shards.put(tp.partition(), handle);
    thread.execute(
        () -> {
          if (handle.state() != ShardHandle.State.LOADING) {
            return;
          }
          long started = time.milliseconds();
          S shard = shardFactory.apply(handle);
          handle.setShard(shard);
          try {
            long records = ShardLoader.load(partition.log(), shard, loadBufferBytes);
            shard.onLoaded();
            handle.activate();
            log.info(
                "Loaded coordinator shard topicPartition={} leaderEpoch={} records={} durationMs={}",
                tp,
                leaderEpoch,
                records,
                time.milliseconds() - started);
          } catch (RuntimeException e) {
            log.error("Loading coordinator shard failed topicPartition={}", tp, e);
            shards.remove(tp.partition(), handle);
            handle.close();
          }
        });
  }

  private void unload(int partition) {
    ShardHandle<S> handle = shards.remove(partition);
    if (handle != null) {
      handle.close();
      log.info("Unloaded coordinator shard topic={} partition={}", topic, partition);
    }
  }

  @Override
  public void onConnectionClosed(String connectionId) {
    for (ShardHandle<S> handle : shards.values()) {
      if (handle.state() == ShardHandle.State.ACTIVE) {
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
    for (ScheduledExecutorService thread : threads) {
      thread.shutdown();
    }
    for (ScheduledExecutorService thread : threads) {
      try {
        if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
          thread.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        thread.shutdownNow();
      }
    }
  }
}
