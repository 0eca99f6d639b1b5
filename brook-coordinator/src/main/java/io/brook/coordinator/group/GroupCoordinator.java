package io.brook.coordinator.group;

import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.TxnResult;
import io.brook.coordinator.group.lag.GroupLag;
import io.brook.coordinator.group.lag.GroupPositions;
import io.brook.coordinator.group.lag.LagCalculator;
import io.brook.coordinator.group.lag.PartitionLag;
import io.brook.coordinator.log.CoordinatorLogs;
import io.brook.coordinator.log.PartitionEnds;
import io.brook.coordinator.runtime.CoordinatorRuntime;
import io.brook.coordinator.service.CoordinatorMarkerWriter;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Time;

/**
 * The group coordinator of this broker: the shards of the {@code __consumer_offsets} partitions it
 * leads. The coordinator of a group is the leader of partition {@code abs(hash(groupId)) % 50}.
 *
 * <p>It is also the {@link CoordinatorMarkerWriter} of {@code __consumer_offsets}: WriteTxnMarkers
 * hands it the markers of transactions that committed offsets here.
 */
public final class GroupCoordinator implements CoordinatorMarkerWriter, AutoCloseable {
  private final GroupConfig config;
  private final CoordinatorRuntime<GroupCoordinatorShard> runtime;
  private final PartitionEnds partitionEnds;
  private final LagCalculator lagCalculator;
  private final Time time;

  /**
   * @param logs the {@code __consumer_offsets} partitions this broker leads
   * @param partitionEnds the data partitions' offsets, for the lag view
   * @param image the broker's current metadata
   */
  public GroupCoordinator(
      GroupConfig config,
      CoordinatorLogs logs,
      PartitionEnds partitionEnds,
      Supplier<MetadataImage> image,
      Time time) {
    this.config = config;
    this.time = time;
    this.partitionEnds = partitionEnds;
    this.lagCalculator = new LagCalculator(partitionEnds);
    this.runtime =
        new CoordinatorRuntime<>(
            GroupConfig.OFFSETS_TOPIC,
            logs,
            image,
            context -> new GroupCoordinatorShard(context, config),
            time,
            config.coordinatorThreads(),
            config.offsetsCommitTimeoutMs(),
            config.offsetsLoadBufferSize());
  }

  public GroupConfig config() {
    return config;
  }

  /** How {@code __consumer_offsets} is created on first use. */
  public InternalTopic offsetsTopic() {
    return new InternalTopic(
        GroupConfig.OFFSETS_TOPIC,
        config.offsetsTopicNumPartitions(),
        config.offsetsTopicReplicationFactor(),
        Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG,
            TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.SEGMENT_BYTES_CONFIG,
            Integer.toString(config.offsetsTopicSegmentBytes()),
            TopicConfig.COMPRESSION_TYPE_CONFIG,
            "producer"));
  }

  /** The {@code __consumer_offsets} partition that owns {@code groupId}. */
  public int partitionFor(String groupId) {
    int count = runtime.partitionCount().orElse(config.offsetsTopicNumPartitions());
    return CoordinatorRuntime.partitionFor(groupId, count);
  }

  /**
   * Runs {@code op} on the shard owning {@code groupId}.
   *
   * @return fails with NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS when this broker cannot
   *     serve the group now
   */
  public <T> CompletableFuture<T> run(
      String groupId, Function<GroupCoordinatorShard, CompletableFuture<T>> op) {
    return runtime.run(partitionFor(groupId), op);
  }

  /** The broker's current metadata. */
  public MetadataImage image() {
    return runtime.image();
  }

  /** Runs {@code op} on every shard this broker has loaded. */
  public <T> List<CompletableFuture<T>> runOnAll(
      Function<GroupCoordinatorShard, CompletableFuture<T>> op) {
    return runtime.runOnAll(op);
  }

  /**
   * Brook's lag view of a group: per partition with a committed offset, the lag in records and in
   * time and when retention would delete records the group has not read.
   *
   * @return fails with GROUP_ID_NOT_FOUND if the group has neither members nor offsets
   */
  public CompletableFuture<GroupLag> lag(String groupId) {
    return run(
        groupId,
        shard -> {
          if (!shard.offsetService().exists(groupId)) {
            return CompletableFuture.failedFuture(
                new GroupIdNotFoundException("group " + groupId + " does not exist"));
          }
          return CompletableFuture.completedFuture(
              lag(positions(shard, groupId), time.milliseconds()));
        });
  }

  /**
   * Every group's committed positions in the shards loaded here, each copied on its shard's thread;
   * {@link #lag(GroupPositions, long)} then computes their lag on the caller's thread.
   */
  public CompletableFuture<List<GroupPositions>> positions() {
    List<CompletableFuture<List<GroupPositions>>> shards =
        runOnAll(
            shard -> {
              List<GroupPositions> groups = new ArrayList<>();
              for (String groupId : shard.offsets().groupIds()) {
                groups.add(positions(shard, groupId));
              }
              return CompletableFuture.completedFuture(groups);
            });
    return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new))
        .thenApply(done -> shards.stream().flatMap(shard -> shard.join().stream()).toList());
  }

  /**
   * The committed positions of {@code groupIds}, each copied on its own shard's thread, for those
   * that have offsets in a shard loaded here (the others are left out): what one page of groups
   * needs, without copying every group of every shard as {@link #positions()} does.
   */
  public CompletableFuture<List<GroupPositions>> positions(Collection<String> groupIds) {
    List<CompletableFuture<GroupPositions>> groups = new ArrayList<>(groupIds.size());
    for (String groupId : groupIds) {
      groups.add(
          run(
                  groupId,
                  shard ->
                      CompletableFuture.completedFuture(
                          shard.offsets().hasOffsets(groupId) ? positions(shard, groupId) : null))
              // Not coordinated here (any more), or its shard still loading: no positions.
              .exceptionally(error -> null));
    }
    return CompletableFuture.allOf(groups.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> groups.stream().map(CompletableFuture::join).filter(Objects::nonNull).toList());
  }

  /**
   * The ends of the partitions this broker leads and the batch headers of their logs, as the lag
   * view reads them.
   */
  public PartitionEnds partitionEnds() {
    return partitionEnds;
  }

  /**
   * A group's lag from its positions, its partitions sorted by topic and partition; only those this
   * broker leads are measured.
   */
  public GroupLag lag(GroupPositions group, long nowMs) {
    return lag(group, nowMs, lagCalculator);
  }

  /**
   * As {@link #lag(GroupPositions, long)}, the partitions this broker does not lead measured from
   * {@code elsewhere} (what their leaders answered).
   */
  public GroupLag lag(GroupPositions group, long nowMs, PartitionEnds elsewhere) {
    return lag(group, nowMs, new LagCalculator(partitionEnds.orElse(elsewhere)));
  }

  private static GroupLag lag(GroupPositions group, long nowMs, LagCalculator lagCalculator) {
    List<PartitionLag> partitions = new ArrayList<>(group.positions().size());
    for (GroupPositions.Position position : group.positions()) {
      partitions.add(
          lagCalculator.lag(
              position.topicPartition(), position.committed(), position.previous(), nowMs));
    }
    partitions.sort(
        Comparator.comparing((PartitionLag p) -> p.topicPartition().topic())
            .thenComparingInt(p -> p.topicPartition().partition()));
    return new GroupLag(group.groupId(), partitions);
  }

  private static GroupPositions positions(GroupCoordinatorShard shard, String groupId) {
    List<GroupPositions.Position> positions = new ArrayList<>();
    shard
        .offsets()
        .committed(groupId)
        .forEach(
            (tp, committed) ->
                positions.add(
                    new GroupPositions.Position(
                        tp, committed, shard.offsets().previous(groupId, tp))));
    return new GroupPositions(groupId, positions);
  }

  @Override
  public String topic() {
    return GroupConfig.OFFSETS_TOPIC;
  }

  /**
   * Appends a transaction marker to a {@code __consumer_offsets} partition through its shard, so
   * the shard commits or drops the producer's pending offsets in log order with its other writes.
   */
  @Override
  public CompletableFuture<Void> writeMarker(
      TopicPartition partition,
      long producerId,
      short producerEpoch,
      int coordinatorEpoch,
      boolean commit) {
    TxnResult result = commit ? TxnResult.COMMIT : TxnResult.ABORT;
    if (!GroupConfig.OFFSETS_TOPIC.equals(partition.topic())) {
      return CompletableFuture.failedFuture(
          new UnknownTopicOrPartitionException(partition + " is not a partition of " + topic()));
    }
    return runtime.run(
        partition.partition(),
        shard -> shard.context().writeMarker(producerId, producerEpoch, coordinatorEpoch, result));
  }

  /** Follows leadership of {@code __consumer_offsets}; call after the replica manager. */
  public void onMetadata(MetadataImage image) {
    runtime.onMetadata(image);
  }

  /** A client connection closed: its shards drop what was tied to it. */
  public void onConnectionClosed(String connectionId) {
    runtime.onConnectionClosed(connectionId);
  }

  /** The runtime, whose health the node publishes as Kafka's {@code group-coordinator-metrics}. */
  public CoordinatorRuntime<?> runtime() {
    return runtime;
  }

  @Override
  public void close() {
    runtime.close();
  }
}
