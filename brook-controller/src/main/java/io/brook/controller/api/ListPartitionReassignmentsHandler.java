package io.brook.controller.api;

import io.brook.broker.api.KafkaApi;
import io.brook.metadata.image.PartitionImage;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ListPartitionReassignments (KIP-455): the named partitions (or all, for null topics) that are
 * being reassigned, with their replicas (the union of old and new during a move) and the replicas
 * being added and removed. Partitions that do not exist or are not moving are left out, as KRaft
 * does. Answered from the controller's image, so a move just started is listed at once.
 */
public final class ListPartitionReassignmentsHandler extends KafkaApi {
  private final TopicAdmin admin;

  public ListPartitionReassignmentsHandler(TopicAdmin admin) {
    super(ApiKeys.LIST_PARTITION_REASSIGNMENTS);
    this.admin = admin;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    ListPartitionReassignmentsRequestData request = (ListPartitionReassignmentsRequestData) message;
    Optional<Map<String, List<Integer>>> wanted = Optional.empty();
    if (request.topics() != null) {
      Map<String, List<Integer>> partitions = new LinkedHashMap<>();
      for (ListPartitionReassignmentsTopics topic : request.topics()) {
        partitions
            .computeIfAbsent(topic.name(), t -> new ArrayList<>())
            .addAll(topic.partitionIndexes());
      }
      wanted = Optional.of(partitions);
    }
    ListPartitionReassignmentsResponseData response = new ListPartitionReassignmentsResponseData();
    admin
        .listPartitionReassignments(wanted)
        .forEach(
            (topic, byPartition) -> {
              OngoingTopicReassignment result = new OngoingTopicReassignment().setName(topic);
              byPartition.forEach((id, p) -> result.partitions().add(ongoing(id, p)));
              response.topics().add(result);
            });
    return CompletableFuture.completedFuture(response);
  }

  private static OngoingPartitionReassignment ongoing(int id, PartitionImage p) {
    return new OngoingPartitionReassignment()
        .setPartitionIndex(id)
        .setReplicas(new ArrayList<>(p.replicas()))
        .setAddingReplicas(new ArrayList<>(p.addingReplicas()))
        .setRemovingReplicas(new ArrayList<>(p.removingReplicas()));
  }
}
