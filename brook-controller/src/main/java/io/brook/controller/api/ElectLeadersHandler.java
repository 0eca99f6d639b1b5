package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.controller.state.ClusterController;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData.TopicPartitions;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ElectLeaders, decided by the active controller. PREFERRED: each named partition (or every
 * partition) is led by its first replica again where that replica is unfenced and in sync. UNCLEAN:
 * each leaderless one gets its first unfenced replica, in sync or not, whatever the topic's {@code
 * unclean.leader.election.enable} (an administrator chose to risk losing acknowledged records).
 */
public final class ElectLeadersHandler extends KafkaApi {
  private final MetadataQuorum quorum;
  private final ClusterController controller;

  public ElectLeadersHandler(MetadataQuorum quorum, ClusterController controller) {
    super(ApiKeys.ELECT_LEADERS);
    this.quorum = quorum;
    this.controller = controller;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    ElectLeadersRequestData request = (ElectLeadersRequestData) message;
    ElectLeadersResponseData response = new ElectLeadersResponseData();
    boolean unclean = request.electionType() == ElectionType.UNCLEAN.value;
    if (!unclean && request.electionType() != ElectionType.PREFERRED.value) {
      return CompletableFuture.completedFuture(
          response.setErrorCode(Errors.INVALID_REQUEST.code()));
    }
    Optional<Map<String, List<Integer>>> wanted = Optional.empty();
    if (request.topicPartitions() != null) {
      Map<String, List<Integer>> partitions = new LinkedHashMap<>();
      for (TopicPartitions tp : request.topicPartitions()) {
        partitions.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).addAll(tp.partitions());
      }
      wanted = Optional.of(partitions);
    }
    Optional<Map<String, List<Integer>>> chosen = wanted;
    return quorum
        .submitAsync(
            image ->
                unclean
                    ? controller.electUncleanLeaders(chosen)
                    : controller.electPreferredLeaders(chosen))
        .handle(
            (results, failure) -> {
              if (failure != null) {
                return response.setErrorCode(ApiFailure.of(failure).code());
              }
              results.forEach(
                  (topic, byPartition) ->
                      response.replicaElectionResults().add(result(topic, byPartition)));
              return response;
            });
  }

  private static ReplicaElectionResult result(String topic, Map<Integer, ApiError> byPartition) {
    ReplicaElectionResult result = new ReplicaElectionResult().setTopic(topic);
    byPartition.forEach(
        (partition, error) ->
            result
                .partitionResult()
                .add(
                    new PartitionResult()
                        .setPartitionId(partition)
                        .setErrorCode(error.error().code())
                        .setErrorMessage(error.isSuccess() ? null : error.messageOrDefault())));
    return result;
  }
}
