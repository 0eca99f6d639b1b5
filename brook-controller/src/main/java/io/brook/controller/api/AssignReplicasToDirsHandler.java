package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.controller.state.ClusterController;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.protocol.RequestContext;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AssignReplicasToDirsRequestData;
import org.apache.kafka.common.message.AssignReplicasToDirsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AssignReplicasToDirs, a controller API, as Brook's brokers use it: to report the replicas of a
 * log directory that failed. Kafka's brokers send it for every placement and its controller records
 * a directory per replica (KIP-858), so that an {@code OfflineLogDirs} heartbeat finds the replicas
 * to move; Brook records no placements, so a broker sends it only when a directory fails, naming
 * that directory and every replica in it, and the controller moves those replicas' leaderships and
 * ISR memberships in one batch ({@code ClusterController#replicasOffline}). Every partition is
 * answered with the request's outcome.
 */
public final class AssignReplicasToDirsHandler extends KafkaApi {
  private final MetadataQuorum quorum;
  private final ClusterController controller;

  public AssignReplicasToDirsHandler(MetadataQuorum quorum, ClusterController controller) {
    super(ApiKeys.ASSIGN_REPLICAS_TO_DIRS);
    this.quorum = quorum;
    this.controller = controller;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    AssignReplicasToDirsRequestData request = (AssignReplicasToDirsRequestData) message;
    Map<Uuid, Set<Integer>> partitions = new HashMap<>();
    for (AssignReplicasToDirsRequestData.DirectoryData dir : request.directories()) {
      for (AssignReplicasToDirsRequestData.TopicData topic : dir.topics()) {
        Set<Integer> ids = partitions.computeIfAbsent(topic.topicId(), t -> new HashSet<>());
        topic.partitions().forEach(p -> ids.add(p.partitionIndex()));
      }
    }
    return quorum
        .submitAsync(
            image ->
                controller.replicasOffline(request.brokerId(), request.brokerEpoch(), partitions))
        .handle(
            (error, failure) ->
                response(
                    request,
                    failure != null
                        ? Errors.forCode(ApiFailure.of(failure).code())
                        : error.error()));
  }

  private static ApiMessage response(AssignReplicasToDirsRequestData request, Errors error) {
    AssignReplicasToDirsResponseData response =
        new AssignReplicasToDirsResponseData().setErrorCode(error.code());
    for (AssignReplicasToDirsRequestData.DirectoryData dir : request.directories()) {
      AssignReplicasToDirsResponseData.DirectoryData outDir =
          new AssignReplicasToDirsResponseData.DirectoryData().setId(dir.id());
      for (AssignReplicasToDirsRequestData.TopicData topic : dir.topics()) {
        AssignReplicasToDirsResponseData.TopicData outTopic =
            new AssignReplicasToDirsResponseData.TopicData().setTopicId(topic.topicId());
        for (AssignReplicasToDirsRequestData.PartitionData p : topic.partitions()) {
          outTopic
              .partitions()
              .add(
                  new AssignReplicasToDirsResponseData.PartitionData()
                      .setPartitionIndex(p.partitionIndex())
                      .setErrorCode(error.code()));
        }
        outDir.topics().add(outTopic);
      }
      response.directories().add(outDir);
    }
    return response;
  }
}
