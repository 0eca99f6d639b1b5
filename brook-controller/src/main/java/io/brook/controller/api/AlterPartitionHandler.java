package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.controller.state.ClusterController;
import io.brook.controller.state.IsrChangeRequest;
import io.brook.controller.state.IsrChangeRequest.IsrMember;
import io.brook.controller.state.IsrChangeResult;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterPartition, a controller API: a partition leader asks for a new ISR after a follower fell
 * behind or caught up. The whole request is one controller operation; the checks are {@code
 * IsrControl}'s. Versions 2 and 3 (the only ones kafka-clients 4.x knows) name topics by id;
 * version 2 gives no broker epochs for the new ISR, so none are checked, and an ineligible member
 * is answered with {@code OPERATION_NOT_ATTEMPTED}, which is what a version 2 leader understands.
 */
public final class AlterPartitionHandler extends KafkaApi {
  /** The first version with broker epochs in the ISR and {@code INELIGIBLE_REPLICA} (KIP-903). */
  private static final short EPOCHS_VERSION = 3;

  private final MetadataQuorum quorum;
  private final ClusterController controller;

  public AlterPartitionHandler(MetadataQuorum quorum, ClusterController controller) {
    super(ApiKeys.ALTER_PARTITION);
    this.quorum = quorum;
    this.controller = controller;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    AlterPartitionRequestData request = (AlterPartitionRequestData) message;
    short version = context.apiVersion();
    List<IsrChangeRequest> partitions = decode(request, version);
    return quorum
        .submitAsync(
            image ->
                controller.alterPartition(request.brokerId(), request.brokerEpoch(), partitions))
        .handle(
            (results, failure) -> {
              if (failure != null) {
                return new AlterPartitionResponseData().setErrorCode(ApiFailure.of(failure).code());
              }
              return encode(results, version);
            });
  }

  private static List<IsrChangeRequest> decode(AlterPartitionRequestData request, short version) {
    List<IsrChangeRequest> partitions = new ArrayList<>();
    for (AlterPartitionRequestData.TopicData topic : request.topics()) {
      for (AlterPartitionRequestData.PartitionData p : topic.partitions()) {
        List<IsrMember> isr =
            version >= EPOCHS_VERSION
                ? p.newIsrWithEpochs().stream()
                    .map(b -> new IsrMember(b.brokerId(), b.brokerEpoch()))
                    .toList()
                : p.newIsr().stream().map(IsrMember::of).toList();
        partitions.add(
            new IsrChangeRequest(
                topic.topicId(),
                p.partitionIndex(),
                p.leaderEpoch(),
                p.partitionEpoch(),
                isr,
                p.leaderRecoveryState()));
      }
    }
    return partitions;
  }

  private static AlterPartitionResponseData encode(List<IsrChangeResult> results, short version) {
    Map<Uuid, AlterPartitionResponseData.TopicData> topics = new LinkedHashMap<>();
    for (IsrChangeResult result : results) {
      Errors error = result.error().error();
      if (error == Errors.INELIGIBLE_REPLICA && version < EPOCHS_VERSION) {
        error = Errors.OPERATION_NOT_ATTEMPTED;
      }
      AlterPartitionResponseData.PartitionData partition =
          new AlterPartitionResponseData.PartitionData()
              .setPartitionIndex(result.partitionId())
              .setErrorCode(error.code());
      if (result.partition().isPresent()) {
        PartitionImage state = result.partition().get();
        partition
            .setLeaderId(state.leader())
            .setLeaderEpoch(state.leaderEpoch())
            .setIsr(new ArrayList<>(state.isr()))
            .setPartitionEpoch(state.partitionEpoch())
            .setLeaderRecoveryState((byte) 0);
      }
      topics
          .computeIfAbsent(
              result.topicId(), id -> new AlterPartitionResponseData.TopicData().setTopicId(id))
          .partitions()
          .add(partition);
    }
    return new AlterPartitionResponseData().setTopics(new ArrayList<>(topics.values()));
  }
}
