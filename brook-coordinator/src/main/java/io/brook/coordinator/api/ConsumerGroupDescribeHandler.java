package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.service.RequestInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ConsumerGroupDescribe (KIP-848): each group is described by its own shard; a group that is not a
 * consumer group (or does not exist) answers GROUP_ID_NOT_FOUND, upon which Kafka's Admin client
 * falls back to DescribeGroups.
 */
public final class ConsumerGroupDescribeHandler extends GroupApi {
  private final GroupCoordinator coordinator;

  public ConsumerGroupDescribeHandler(GroupCoordinator coordinator) {
    super(ApiKeys.CONSUMER_GROUP_DESCRIBE);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    ConsumerGroupDescribeRequestData request = (ConsumerGroupDescribeRequestData) message;
    List<CompletableFuture<DescribedGroup>> futures = new ArrayList<>();
    for (String groupId : request.groupIds()) {
      futures.add(describe(groupId));
    }
    return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              ConsumerGroupDescribeResponseData response = new ConsumerGroupDescribeResponseData();
              futures.forEach(f -> response.groups().add(f.join()));
              return response;
            });
  }

  private CompletableFuture<DescribedGroup> describe(String groupId) {
    if (!isValidGroupId(groupId)) {
      return CompletableFuture.completedFuture(
          new DescribedGroup()
              .setGroupId(groupId)
              .setErrorCode(Errors.INVALID_GROUP_ID.code())
              .setErrorMessage("Group id can't be empty."));
    }
    return coordinator
        .run(
            groupId, shard -> CompletableFuture.completedFuture(shard.consumer().describe(groupId)))
        .handle(
            (described, failure) -> {
              if (failure == null) {
                return described;
              }
              Errors error = CoordinatorErrors.map(failure);
              return new DescribedGroup()
                  .setGroupId(groupId)
                  .setErrorCode(error.code())
                  .setErrorMessage(error.message());
            });
  }
}
