package io.brook.coordinator.share;

import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.log.CoordinatorLogs;
import io.brook.coordinator.runtime.CoordinatorRuntime;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.service.ShareCoordinatorService;
import io.brook.coordinator.share.ShareCoordinatorShard.Outcome;
import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;

/**
 * The share coordinator of this broker (KIP-932): the shards of the {@code __share_group_state}
 * partitions it leads. A share-partition's state lives in partition {@code abs(hash(key)) %
 * partitions} of the topic, {@code key} being {@code groupId:topicId:partition}; the leader of that
 * partition is its coordinator. Each partition of a request is served by its own shard; one that
 * this broker does not lead (or is still loading) is answered NOT_COORDINATOR (or
 * COORDINATOR_LOAD_IN_PROGRESS) alone.
 */
public final class ShareCoordinator implements ShareCoordinatorService, AutoCloseable {
  private final ShareStateConfig config;
  private final CoordinatorRuntime<ShareCoordinatorShard> runtime;

  public ShareCoordinator(
      ShareStateConfig config, CoordinatorLogs logs, Supplier<MetadataImage> image, Time time) {
    this.config = config;
    this.runtime =
        new CoordinatorRuntime<>(
            ShareStateConfig.TOPIC,
            logs,
            image,
            ShareCoordinatorShard::new,
            time,
            config.threads(),
            config.writeTimeoutMs(),
            config.loadBufferSize());
  }

  @Override
  public InternalTopic stateTopic() {
    return stateTopic(config);
  }

  /**
   * How {@code __share_group_state} is created on first use: compacted, since Brook writes a whole
   * snapshot per change (see {@link ShareStateRecords}).
   */
  public static InternalTopic stateTopic(ShareStateConfig config) {
    return new InternalTopic(
        ShareStateConfig.TOPIC,
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

  @Override
  public int partitionFor(String key) {
    int count = runtime.partitionCount().orElse(config.numPartitions());
    return CoordinatorRuntime.partitionFor(key, count);
  }

  /** Runs {@code op} on the shard owning {@code key}; a failure becomes the outcome's error. */
  CompletableFuture<Outcome> run(
      ShareStateKey key, Function<ShareCoordinatorShard, CompletableFuture<Outcome>> op) {
    CompletableFuture<Outcome> result;
    try {
      result = runtime.run(partitionFor(key.coordinatorKey()), op);
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    return result.handle(
        (outcome, failure) -> {
          if (failure == null) {
            return outcome;
          }
          Throwable cause =
              failure instanceof CompletionException && failure.getCause() != null
                  ? failure.getCause()
                  : failure;
          Errors error = Errors.forException(cause);
          // A write that timed out waiting for replication: the leader retries.
          if (error == Errors.REQUEST_TIMED_OUT || error == Errors.UNKNOWN_SERVER_ERROR) {
            error = Errors.COORDINATOR_NOT_AVAILABLE;
          }
          return Outcome.error(error, cause.getMessage());
        });
  }

  @Override
  public CompletableFuture<InitializeShareGroupStateResponseData> initializeShareGroupState(
      RequestInfo info, InitializeShareGroupStateRequestData request) {
    List<CompletableFuture<?>> pending = new ArrayList<>();
    InitializeShareGroupStateResponseData response = new InitializeShareGroupStateResponseData();
    for (InitializeShareGroupStateRequestData.InitializeStateData topic : request.topics()) {
      InitializeShareGroupStateResponseData.InitializeStateResult result =
          new InitializeShareGroupStateResponseData.InitializeStateResult()
              .setTopicId(topic.topicId());
      response.results().add(result);
      for (InitializeShareGroupStateRequestData.PartitionData p : topic.partitions()) {
        InitializeShareGroupStateResponseData.PartitionResult out =
            new InitializeShareGroupStateResponseData.PartitionResult().setPartition(p.partition());
        result.partitions().add(out);
        pending.add(
            serve(
                request.groupId(),
                topic.topicId(),
                p.partition(),
                key -> s -> s.initialize(key, p.stateEpoch(), p.startOffset()),
                o -> out.setErrorCode(o.error().code()).setErrorMessage(o.message())));
      }
    }
    return all(pending, response);
  }

  @Override
  public CompletableFuture<ReadShareGroupStateResponseData> readShareGroupState(
      RequestInfo info, ReadShareGroupStateRequestData request) {
    List<CompletableFuture<?>> pending = new ArrayList<>();
    ReadShareGroupStateResponseData response = new ReadShareGroupStateResponseData();
    for (ReadShareGroupStateRequestData.ReadStateData topic : request.topics()) {
      ReadShareGroupStateResponseData.ReadStateResult result =
          new ReadShareGroupStateResponseData.ReadStateResult().setTopicId(topic.topicId());
      response.results().add(result);
      for (ReadShareGroupStateRequestData.PartitionData p : topic.partitions()) {
        ReadShareGroupStateResponseData.PartitionResult out =
            new ReadShareGroupStateResponseData.PartitionResult()
                .setPartition(p.partition())
                .setStateEpoch(0)
                .setStartOffset(-1);
        result.partitions().add(out);
        pending.add(
            serve(
                request.groupId(),
                topic.topicId(),
                p.partition(),
                key -> s -> s.read(key, p.leaderEpoch()),
                o -> {
                  out.setErrorCode(o.error().code()).setErrorMessage(o.message());
                  if (o.state() != null) {
                    out.setStateEpoch(o.state().stateEpoch())
                        .setStartOffset(o.state().startOffset());
                    for (StateBatch b : o.state().batches()) {
                      out.stateBatches()
                          .add(
                              new ReadShareGroupStateResponseData.StateBatch()
                                  .setFirstOffset(b.firstOffset())
                                  .setLastOffset(b.lastOffset())
                                  .setDeliveryState(b.deliveryState())
                                  .setDeliveryCount(b.deliveryCount()));
                    }
                  }
                }));
      }
    }
    return all(pending, response);
  }

  @Override
  public CompletableFuture<WriteShareGroupStateResponseData> writeShareGroupState(
      RequestInfo info, WriteShareGroupStateRequestData request) {
    List<CompletableFuture<?>> pending = new ArrayList<>();
    WriteShareGroupStateResponseData response = new WriteShareGroupStateResponseData();
    for (WriteShareGroupStateRequestData.WriteStateData topic : request.topics()) {
      WriteShareGroupStateResponseData.WriteStateResult result =
          new WriteShareGroupStateResponseData.WriteStateResult().setTopicId(topic.topicId());
      response.results().add(result);
      for (WriteShareGroupStateRequestData.PartitionData p : topic.partitions()) {
        WriteShareGroupStateResponseData.PartitionResult out =
            new WriteShareGroupStateResponseData.PartitionResult().setPartition(p.partition());
        result.partitions().add(out);
        List<StateBatch> batches = new ArrayList<>(p.stateBatches().size());
        for (WriteShareGroupStateRequestData.StateBatch b : p.stateBatches()) {
          batches.add(
              new StateBatch(
                  b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()));
        }
        pending.add(
            serve(
                request.groupId(),
                topic.topicId(),
                p.partition(),
                key -> s -> s.write(key, p.stateEpoch(), p.leaderEpoch(), p.startOffset(), batches),
                o -> out.setErrorCode(o.error().code()).setErrorMessage(o.message())));
      }
    }
    return all(pending, response);
  }

  @Override
  public CompletableFuture<DeleteShareGroupStateResponseData> deleteShareGroupState(
      RequestInfo info, DeleteShareGroupStateRequestData request) {
    List<CompletableFuture<?>> pending = new ArrayList<>();
    DeleteShareGroupStateResponseData response = new DeleteShareGroupStateResponseData();
    for (DeleteShareGroupStateRequestData.DeleteStateData topic : request.topics()) {
      DeleteShareGroupStateResponseData.DeleteStateResult result =
          new DeleteShareGroupStateResponseData.DeleteStateResult().setTopicId(topic.topicId());
      response.results().add(result);
      for (DeleteShareGroupStateRequestData.PartitionData p : topic.partitions()) {
        DeleteShareGroupStateResponseData.PartitionResult out =
            new DeleteShareGroupStateResponseData.PartitionResult().setPartition(p.partition());
        result.partitions().add(out);
        pending.add(
            serve(
                request.groupId(),
                topic.topicId(),
                p.partition(),
                key -> s -> s.delete(key),
                o -> out.setErrorCode(o.error().code()).setErrorMessage(o.message())));
      }
    }
    return all(pending, response);
  }

  @Override
  public CompletableFuture<ReadShareGroupStateSummaryResponseData> readShareGroupStateSummary(
      RequestInfo info, ReadShareGroupStateSummaryRequestData request) {
    List<CompletableFuture<?>> pending = new ArrayList<>();
    ReadShareGroupStateSummaryResponseData response = new ReadShareGroupStateSummaryResponseData();
    for (ReadShareGroupStateSummaryRequestData.ReadStateSummaryData topic : request.topics()) {
      ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult result =
          new ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult()
              .setTopicId(topic.topicId());
      response.results().add(result);
      for (ReadShareGroupStateSummaryRequestData.PartitionData p : topic.partitions()) {
        ReadShareGroupStateSummaryResponseData.PartitionResult out =
            new ReadShareGroupStateSummaryResponseData.PartitionResult()
                .setPartition(p.partition())
                .setStateEpoch(0)
                .setLeaderEpoch(-1)
                .setStartOffset(-1)
                .setDeliveryCompleteCount(-1);
        result.partitions().add(out);
        pending.add(
            serve(
                request.groupId(),
                topic.topicId(),
                p.partition(),
                key -> s -> CompletableFuture.completedFuture(s.summary(key)),
                o -> {
                  out.setErrorCode(o.error().code()).setErrorMessage(o.message());
                  if (o.state() != null) {
                    out.setStateEpoch(o.state().stateEpoch())
                        .setLeaderEpoch(o.state().leaderEpoch())
                        .setStartOffset(o.state().startOffset())
                        .setDeliveryCompleteCount(o.state().deliveryCompleteCount());
                  }
                }));
      }
    }
    return all(pending, response);
  }

  /** One partition of a request: validated, run on its shard, answered by {@code answer}. */
  private CompletableFuture<Void> serve(
      String groupId,
      Uuid topicId,
      int partition,
      Function<ShareStateKey, Function<ShareCoordinatorShard, CompletableFuture<Outcome>>> op,
      Consumer<Outcome> answer) {
    if (groupId == null || groupId.isEmpty()) {
      answer.accept(Outcome.error(Errors.INVALID_REQUEST, "GroupId must be set."));
      return CompletableFuture.completedFuture(null);
    }
    if (topicId == null || Uuid.ZERO_UUID.equals(topicId) || partition < 0) {
      answer.accept(Outcome.error(Errors.INVALID_REQUEST, "TopicId and Partition must be set."));
      return CompletableFuture.completedFuture(null);
    }
    ShareStateKey key = new ShareStateKey(groupId, topicId, partition);
    return run(key, op.apply(key)).thenAccept(answer);
  }

  private static <R> CompletableFuture<R> all(List<CompletableFuture<?>> pending, R response) {
    return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
        .thenApply(v -> response);
  }

  /** Follows leadership of {@code __share_group_state}; call after the replica manager. */
  public void onMetadata(MetadataImage image) {
    runtime.onMetadata(image);
  }

  /** The runtime, whose health the node publishes as {@code share-coordinator-metrics}. */
  public CoordinatorRuntime<?> runtime() {
    return runtime;
  }

  @Override
  public void close() throws Exception {
    runtime.close();
  }
}
