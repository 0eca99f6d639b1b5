package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.service.RequestInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DeleteGroups: removes empty groups and their offsets, each at its own coordinator shard. */
public final class DeleteGroupsHandler extends GroupApi {
  private final GroupCoordinator coordinator;

  public DeleteGroupsHandler(GroupCoordinator coordinator) {
    super(ApiKeys.DELETE_GROUPS);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    DeleteGroupsRequestData request = (DeleteGroupsRequestData) message;
    List<CompletableFuture<DeletableGroupResult>> results = new ArrayList<>();
    for (String groupId : request.groupsNames()) {
      DeletableGroupResult result = new DeletableGroupResult().setGroupId(groupId);
      if (!isValidGroupId(groupId)) {
        results.add(
            CompletableFuture.completedFuture(result.setErrorCode(Errors.INVALID_GROUP_ID.code())));
        continue;
      }
      results.add(
          coordinator
              .run(groupId, shard -> shard.listings().delete(groupId))
              .handle(
                  (error, failure) ->
                      result.setErrorCode(
                          failure != null ? errorOf(failure).code() : error.code())));
    }
    return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              DeleteGroupsResponseData response = new DeleteGroupsResponseData();
              results.forEach(r -> response.results().add(r.join()));
              return response;
            });
  }
}
