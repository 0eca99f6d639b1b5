package io.brook.coordinator.txn;

import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.log.CoordinatorLogs;
import io.brook.coordinator.runtime.CoordinatorRuntime;
import io.brook.coordinator.service.TxnMarkerChannel;
import io.brook.metadata.image.MetadataImage;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.utils.Time;

/**
 * The transaction coordinator of this broker (KIP-98): the shards of the {@code
 * __transaction_state} partitions it leads, and the marker channel they share. The coordinator of a
 * transactional id is the leader of partition {@code abs(hash(id)) % 50}.
 */
public final class TransactionCoordinator implements AutoCloseable {
  /**
   * Producer id allocations that may wait for the allocating thread (which may wait on the
   * controller for a new block); more are refused with a retriable error.
   */
  static final int MAX_QUEUED_ALLOCATIONS = 10_000;

  private final TxnConfig config;
  private final CoordinatorRuntime<TransactionCoordinatorShard> runtime;
  private final LongSupplier producerIds;
  private final TxnMarkerChannel markers;
  private final ThreadPoolExecutor allocator;

  /**
   * A coordinator handing the markers of ended transactions to {@code markers}.
   *
   * @param logs the {@code __transaction_state} partitions this broker leads
   * @param image the broker's current metadata
   * @param producerIds hands out fresh producer ids (may block on the controller for a new block)
   * @param markers writes the markers to the partitions (the broker's marker sender), closed with
   *     the coordinator
   */
  public static TransactionCoordinator start(
      TxnConfig config,
      CoordinatorLogs logs,
      Supplier<MetadataImage> image,
      LongSupplier producerIds,
      TxnMarkerChannel markers,
      Time time) {
    return new TransactionCoordinator(config, logs, image, producerIds, markers, time);
  }

  TransactionCoordinator(
      TxnConfig config,
      CoordinatorLogs logs,
      Supplier<MetadataImage> image,
      LongSupplier producerIds,
      TxnMarkerChannel markers,
      Time time) {
    this.config = config;
    this.producerIds = producerIds;
    this.markers = markers;
    this.allocator =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(MAX_QUEUED_ALLOCATIONS),
            runnable -> {
              Thread thread = new Thread(runnable, "brook-txn-producer-ids");
              thread.setDaemon(true);
              return thread;
            });
    this.runtime =
        new CoordinatorRuntime<>(
            TxnConfig.TOPIC,
            logs,
            image,
            context -> new TransactionCoordinatorShard(context, config, markers),
            time,
            config.threads(),
            config.writeTimeoutMs(),
            config.loadBufferSize());
  }

  public TxnConfig config() {
    return config;
  }

  /** How {@code __transaction_state} is created on first use (by FindCoordinator). */
  public InternalTopic stateTopic() {
    return stateTopic(config);
  }

  public static InternalTopic stateTopic(TxnConfig config) {
    return new InternalTopic(
        TxnConfig.TOPIC,
        config.numPartitions(),
        config.replicationFactor(),
        Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG,
            TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.SEGMENT_BYTES_CONFIG,
            Integer.toString(config.segmentBytes()),
            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
            Integer.toString(config.minIsr()),
            TopicConfig.COMPRESSION_TYPE_CONFIG,
            "uncompressed"));
  }

  /** The {@code __transaction_state} partition that owns {@code transactionalId}. */
  public int partitionFor(String transactionalId) {
    int count = runtime.partitionCount().orElse(config.numPartitions());
    return CoordinatorRuntime.partitionFor(transactionalId, count);
  }

  /**
   * Runs {@code op} on the shard owning {@code transactionalId}.
   *
   * @return fails with NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS when this broker cannot
   *     serve the id now
   */
  public <T> CompletableFuture<T> run(
      String transactionalId, Function<TransactionCoordinatorShard, CompletableFuture<T>> op) {
    return runtime.run(partitionFor(transactionalId), op);
  }

  /** The broker's current metadata. */
  public MetadataImage image() {
    return runtime.image();
  }

  /** Runs {@code op} on every shard this broker has loaded. */
  public <T> List<CompletableFuture<T>> runOnAll(
      Function<TransactionCoordinatorShard, CompletableFuture<T>> op) {
    return runtime.runOnAll(op);
  }

  /**
   * InitProducerId for a transactional id. A fresh producer id, when the shard needs one, is
   * allocated off the shard thread (allocation may wait on the controller), then the shard is asked
   * again with it.
   */
  public CompletableFuture<InitProducerIdResult> initProducerId(
      String transactionalId, int timeoutMs, long expectedProducerId, short expectedEpoch) {
    return run(
            transactionalId,
            shard ->
                shard.initProducerId(
                    transactionalId,
                    timeoutMs,
                    expectedProducerId,
                    expectedEpoch,
                    OptionalLong.empty()))
        .thenCompose(
            first ->
                !first.needsProducerId()
                    ? CompletableFuture.completedFuture(first)
                    : allocateProducerId()
                        .thenCompose(
                            fresh ->
                                run(
                                    transactionalId,
                                    shard ->
                                        shard.initProducerId(
                                            transactionalId,
                                            timeoutMs,
                                            expectedProducerId,
                                            expectedEpoch,
                                            OptionalLong.of(fresh)))));
  }

  /**
   * EndTxn of a transaction protocol V2 producer. A fresh producer id, when the epoch is exhausted,
   * is allocated off the shard thread as for {@link #initProducerId}.
   */
  public CompletableFuture<EndTxnResult> endTxnV2(
      String transactionalId, long producerId, short producerEpoch, boolean commit) {
    return run(
            transactionalId,
            shard ->
                shard.endTxnV2(
                    transactionalId, producerId, producerEpoch, commit, OptionalLong.empty()))
        .thenCompose(
            first ->
                !first.needsProducerId()
                    ? CompletableFuture.completedFuture(first)
                    : allocateProducerId()
                        .thenCompose(
                            fresh ->
                                run(
                                    transactionalId,
                                    shard ->
                                        shard.endTxnV2(
                                            transactionalId,
                                            producerId,
                                            producerEpoch,
                                            commit,
                                            OptionalLong.of(fresh)))));
  }

  /**
   * A producer id for an idempotent (non-transactional) producer, or a new transactional id.
   *
   * @return fails with COORDINATOR_LOAD_IN_PROGRESS (retriable, as Kafka answers while no block of
   *     ids is at hand) when {@link #MAX_QUEUED_ALLOCATIONS} allocations already wait
   */
  public CompletableFuture<Long> allocateProducerId() {
    try {
      return CompletableFuture.supplyAsync(producerIds::getAsLong, allocator);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          new CoordinatorLoadInProgressException(
              "producer id allocations are backed up or stopped"));
    }
  }

  /** Follows leadership of {@code __transaction_state}; call after the replica manager. */
  public void onMetadata(MetadataImage image) {
    runtime.onMetadata(image);
  }

  /**
   * The runtime, whose health the node publishes as Kafka's {@code
   * transaction-coordinator-metrics}.
   */
  public CoordinatorRuntime<?> runtime() {
    return runtime;
  }

  @Override
  public void close() throws Exception {
    runtime.close();
    allocator.shutdownNow();
    allocator.awaitTermination(5, TimeUnit.SECONDS);
    markers.close();
  }
}
