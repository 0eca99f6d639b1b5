package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.offsets.OffsetService.DeleteResult;
import io.brook.coordinator.service.RequestInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** OffsetDelete: drops a group's committed offsets for topics it no longer consumes. */
public final class OffsetDeleteHandler extends GroupApi {
  private final GroupCoordinator coordinator;

  public OffsetDeleteHandler(GroupCoordinator coordinator) {
    super(ApiKeys.OFFSET_DELETE);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    OffsetDeleteRequestData request = (OffsetDeleteRequestData) message;
    if (!isValidGroupId(request.groupId())) {
      return CompletableFuture.completedFuture(
          new OffsetDeleteResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
    }
    List<TopicPartition> partitions = new ArrayList<>();
    for (OffsetDeleteRequestTopic topic : request.topics()) {
      for (OffsetDeleteRequestPartition p : topic.partitions()) {
        partitions.add(new TopicPartition(topic.name(), p.partitionIndex()));
      }
    }
    return coordinator
        .run(
            request.groupId(), shard -> shard.offsetService().delete(request.groupId(), partitions))
        .handle(
            (result, failure) ->
                failure != null
                    ? new OffsetDeleteResponseData().setErrorCode(errorOf(failure).code())
                    : response(request, result));
  }

  private static ApiMessage response(OffsetDeleteRequestData request, DeleteResult result) {
    OffsetDeleteResponseData response =
        new OffsetDeleteResponseData().setErrorCode(result.groupError().code());
    if (result.groupError() != Errors.NONE) {
      return response;
    }
    Map<TopicPartition, Errors> errors = result.partitions();
    for (OffsetDeleteRequestTopic topic : request.topics()) {
      OffsetDeleteResponseTopic out = new OffsetDeleteResponseTopic().setName(topic.name());
      response.topics().add(out);
      for (OffsetDeleteRequestPartition p : topic.partitions()) {
        Errors error =
            errors.getOrDefault(
                new TopicPartition(topic.name(), p.partitionIndex()), Errors.UNKNOWN_SERVER_ERROR);
        out.partitions()
            .add(
                new OffsetDeleteResponsePartition()
                    .setPartitionIndex(p.partitionIndex())
                    .setErrorCode(error.code()));
      }
    }
    return response;
  }
}
