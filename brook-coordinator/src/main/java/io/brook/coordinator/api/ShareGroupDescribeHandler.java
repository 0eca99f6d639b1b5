package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.service.RequestInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareGroupDescribe (KIP-932): each group is described by its own shard; a group that is not a
 * share group (or does not exist) answers GROUP_ID_NOT_FOUND.
 */
public final class ShareGroupDescribeHandler extends GroupApi {
  private final GroupCoordinator coordinator;

  public ShareGroupDescribeHandler(GroupCoordinator coordinator) {
    super(ApiKeys.SHARE_GROUP_DESCRIBE);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    ShareGroupDescribeRequestData request = (ShareGroupDescribeRequestData) message;
    List<CompletableFuture<DescribedGroup>> futures = new ArrayList<>();
    for (String groupId : request.groupIds()) {
      futures.add(describe(groupId));
    }
    return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              ShareGroupDescribeResponseData response = new ShareGroupDescribeResponseData();
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
        .run(groupId, shard -> CompletableFuture.completedFuture(shard.share().describe(groupId)))
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
