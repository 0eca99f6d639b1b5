package io.brook.broker.share;

import io.brook.broker.api.group.FindCoordinatorHandler;
import io.brook.broker.txn.InterBrokerNodes;
import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.InternalTopicCreator;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.service.ShareCoordinatorService;
import io.brook.coordinator.service.ShareStateClient;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.NodeResponse;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
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
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a partition leader reads and writes its share-partitions' durable state at the share
 * coordinator, as Kafka's persister does: the coordinator of a share-partition is the leader of
 * partition {@code abs(hash("group:topicId:partition")) % partitions} of {@code
 * __share_group_state} in this broker's metadata image. This broker's own coordinator is called
 * directly; another broker's gets the share-group state API over the inter-broker client.
 *
 * <p>Each call concerns one share-partition, and the share-partition manager keeps at most one call
 * in flight per share-partition, so the requests outstanding are bounded by the share-partitions
 * this broker keeps. The futures never fail: a coordinator that cannot be reached answers
 * COORDINATOR_NOT_AVAILABLE (or the network error), and the caller tries again later. When {@code
 * __share_group_state} does not exist yet it is created, as FindCoordinator creates it.
 *
 * <p>The group coordinator uses it too ({@link ShareStateClient}), for the share-group admin APIs
 * and for deleting a share group's state.
 */
public final class ShareStatePersister implements ShareStateClient, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ShareStatePersister.class);

  private final ShareCoordinatorService local;
  private final InternalTopicCreator topicCreator;
  private final Supplier<MetadataImage> image;
  private final int localBrokerId;
  private final String listener;
  private final InterNodeClient client;
  private final RequestInfo localInfo;

  /**
   * @param local this broker's share coordinator
   * @param client the persister's own client (closed with it)
   */
  public ShareStatePersister(
      ShareCoordinatorService local,
      InternalTopicCreator topicCreator,
      Supplier<MetadataImage> image,
      int localBrokerId,
      String listener,
      InterNodeClient client) {
    this.local = local;
    this.topicCreator = topicCreator;
    this.image = image;
    this.localBrokerId = localBrokerId;
    this.listener = listener;
    this.client = client;
    this.localInfo = new RequestInfo((short) 0, "brook-broker-" + localBrokerId, "", "");
  }

  /** A share-partition's state as read: start offset -1 when it was never initialized. */
  public CompletableFuture<ReadShareGroupStateResponseData.PartitionResult> read(
      String groupId, Uuid topicId, int partition, int leaderEpoch) {
    ReadShareGroupStateRequestData request =
        new ReadShareGroupStateRequestData()
            .setGroupId(groupId)
            .setTopics(
                List.of(
                    new ReadShareGroupStateRequestData.ReadStateData()
                        .setTopicId(topicId)
                        .setPartitions(
                            List.of(
                                new ReadShareGroupStateRequestData.PartitionData()
                                    .setPartition(partition)
                                    .setLeaderEpoch(leaderEpoch)))));
    return call(
        groupId,
        topicId,
        partition,
        ApiKeys.READ_SHARE_GROUP_STATE,
        request,
        r -> local.readShareGroupState(localInfo, r),
        ReadShareGroupStateResponseData.class,
        response -> {
          for (ReadShareGroupStateResponseData.ReadStateResult t : response.results()) {
            for (ReadShareGroupStateResponseData.PartitionResult p : t.partitions()) {
              return p;
            }
          }
          return failedRead(Errors.UNKNOWN_SERVER_ERROR);
        },
        ShareStatePersister::failedRead);
  }

  @Override
  public CompletableFuture<ReadShareGroupStateSummaryResponseData.PartitionResult> readSummary(
      String groupId, Uuid topicId, int partition) {
    ReadShareGroupStateSummaryRequestData request =
        new ReadShareGroupStateSummaryRequestData()
            .setGroupId(groupId)
            .setTopics(
                List.of(
                    new ReadShareGroupStateSummaryRequestData.ReadStateSummaryData()
                        .setTopicId(topicId)
                        .setPartitions(
                            List.of(
                                new ReadShareGroupStateSummaryRequestData.PartitionData()
                                    .setPartition(partition)
                                    .setLeaderEpoch(-1)))));
    return call(
        groupId,
        topicId,
        partition,
        ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY,
        request,
        r -> local.readShareGroupStateSummary(localInfo, r),
        ReadShareGroupStateSummaryResponseData.class,
        response -> {
          for (ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult t :
              response.results()) {
            for (ReadShareGroupStateSummaryResponseData.PartitionResult p : t.partitions()) {
              return p;
            }
          }
          return failedSummary(Errors.UNKNOWN_SERVER_ERROR);
        },
        ShareStatePersister::failedSummary);
  }

  /** Starts the share-partition's state over at {@code startOffset} with {@code stateEpoch}. */
  @Override
  public CompletableFuture<Errors> initialize(
      String groupId, Uuid topicId, int partition, int stateEpoch, long startOffset) {
    InitializeShareGroupStateRequestData request =
        new InitializeShareGroupStateRequestData()
            .setGroupId(groupId)
            .setTopics(
                List.of(
                    new InitializeShareGroupStateRequestData.InitializeStateData()
                        .setTopicId(topicId)
                        .setPartitions(
                            List.of(
                                new InitializeShareGroupStateRequestData.PartitionData()
                                    .setPartition(partition)
                                    .setStateEpoch(stateEpoch)
                                    .setStartOffset(startOffset)))));
    return call(
        groupId,
        topicId,
        partition,
        ApiKeys.INITIALIZE_SHARE_GROUP_STATE,
        request,
        r -> local.initializeShareGroupState(localInfo, r),
        InitializeShareGroupStateResponseData.class,
        response ->
            firstError(
                response.results().stream().flatMap(t -> t.partitions().stream()).toList(),
                p -> p.errorCode()),
        Function.identity());
  }

  /** Writes the share-partition's start offset and in-flight batches. */
  public CompletableFuture<Errors> write(
      String groupId,
      Uuid topicId,
      int partition,
      int stateEpoch,
      int leaderEpoch,
      long startOffset,
      List<WriteShareGroupStateRequestData.StateBatch> batches) {
    WriteShareGroupStateRequestData request =
        new WriteShareGroupStateRequestData()
            .setGroupId(groupId)
            .setTopics(
                List.of(
                    new WriteShareGroupStateRequestData.WriteStateData()
                        .setTopicId(topicId)
                        .setPartitions(
                            List.of(
                                new WriteShareGroupStateRequestData.PartitionData()
                                    .setPartition(partition)
                                    .setStateEpoch(stateEpoch)
                                    .setLeaderEpoch(leaderEpoch)
                                    .setStartOffset(startOffset)
                                    .setStateBatches(batches)))));
    return call(
        groupId,
        topicId,
        partition,
        ApiKeys.WRITE_SHARE_GROUP_STATE,
        request,
        r -> local.writeShareGroupState(localInfo, r),
        WriteShareGroupStateResponseData.class,
        response ->
            firstError(
                response.results().stream().flatMap(t -> t.partitions().stream()).toList(),
                p -> p.errorCode()),
        Function.identity());
  }

  /** Deletes the share-partition's state. */
  @Override
  public CompletableFuture<Errors> delete(String groupId, Uuid topicId, int partition) {
    DeleteShareGroupStateRequestData request =
        new DeleteShareGroupStateRequestData()
            .setGroupId(groupId)
            .setTopics(
                List.of(
                    new DeleteShareGroupStateRequestData.DeleteStateData()
                        .setTopicId(topicId)
                        .setPartitions(
                            List.of(
                                new DeleteShareGroupStateRequestData.PartitionData()
                                    .setPartition(partition)))));
    return call(
        groupId,
        topicId,
        partition,
        ApiKeys.DELETE_SHARE_GROUP_STATE,
        request,
        r -> local.deleteShareGroupState(localInfo, r),
        DeleteShareGroupStateResponseData.class,
        response ->
            firstError(
                response.results().stream().flatMap(t -> t.partitions().stream()).toList(),
                p -> p.errorCode()),
        Function.identity());
  }

  /**
   * Sends {@code request} to the share-partition's coordinator, locally or over the network, and
   * reads its one partition's answer; every failure becomes {@code onError} of an error code.
   */
  private <Q extends ApiMessage, R extends ApiMessage, T> CompletableFuture<T> call(
      String groupId,
      Uuid topicId,
      int partition,
      ApiKeys api,
      Q request,
      Function<Q, CompletableFuture<R>> localCall,
      Class<R> responseType,
      Function<R, T> answer,
      Function<Errors, T> onError) {
    Optional<Integer> coordinator = coordinatorOf(groupId, topicId, partition);
    if (coordinator.isEmpty()) {
      return CompletableFuture.completedFuture(onError.apply(Errors.COORDINATOR_NOT_AVAILABLE));
    }
    CompletableFuture<R> response;
    if (coordinator.get() == localBrokerId) {
      response = localCall.apply(request);
    } else {
      Optional<Node> node = InterBrokerNodes.of(image.get(), coordinator.get(), listener);
      if (node.isEmpty()) {
        return CompletableFuture.completedFuture(onError.apply(Errors.COORDINATOR_NOT_AVAILABLE));
      }
      response =
          client.send(node.get(), api, version -> request).thenApply(r -> bodyOf(r, responseType));
    }
    return response.handle(
        (r, failure) -> {
          if (failure != null) {
            log.debug(
                "Share state call failed api={} groupId={} topicId={} partition={}: {}",
                api,
                groupId,
                topicId,
                partition,
                failure.toString());
            return onError.apply(Errors.COORDINATOR_NOT_AVAILABLE);
          }
          return answer.apply(r);
        });
  }

  private static <R extends ApiMessage> R bodyOf(NodeResponse response, Class<R> type) {
    return response.body(type);
  }

  /** The broker leading the share-partition's {@code __share_group_state} partition. */
  private Optional<Integer> coordinatorOf(String groupId, Uuid topicId, int partition) {
    MetadataImage current = image.get();
    InternalTopic topic = local.stateTopic();
    Optional<TopicImage> stateTopic = current.topic(topic.name());
    if (stateTopic.isEmpty()) {
      FindCoordinatorHandler.createInternalTopic(current, topicCreator, topic);
      return Optional.empty();
    }
    int partitions = stateTopic.get().numPartitions();
    if (partitions == 0) {
      return Optional.empty();
    }
    String key = groupId + ":" + topicId + ":" + partition;
    return current
        .partition(topic.name(), InternalTopic.partitionFor(key, partitions))
        .filter(PartitionImage::hasLeader)
        .map(PartitionImage::leader);
  }

  /** The error of a one-partition answer's partition. */
  private static <P> Errors firstError(List<P> partitions, ToIntFunction<P> errorCode) {
    return partitions.isEmpty()
        ? Errors.UNKNOWN_SERVER_ERROR
        : Errors.forCode((short) errorCode.applyAsInt(partitions.get(0)));
  }

  private static ReadShareGroupStateResponseData.PartitionResult failedRead(Errors error) {
    return new ReadShareGroupStateResponseData.PartitionResult()
        .setErrorCode(error.code())
        .setStartOffset(-1);
  }

  private static ReadShareGroupStateSummaryResponseData.PartitionResult failedSummary(
      Errors error) {
    return new ReadShareGroupStateSummaryResponseData.PartitionResult()
        .setErrorCode(error.code())
        .setStateEpoch(0)
        .setLeaderEpoch(-1)
        .setStartOffset(-1);
  }

  @Override
  public void close() {
    client.close();
  }
}
