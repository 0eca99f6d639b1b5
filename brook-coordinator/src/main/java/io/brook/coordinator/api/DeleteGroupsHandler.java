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

/**
 * DeleteGroups: removes empty groups and their offsets, each at its own coordinator shard. An empty
 * share group's state is deleted at the share coordinators first (DeleteShareGroupState of each of
 * its state partitions); when that fails the group stays and answers the error, as in Kafka.
 */
public final class DeleteGroupsHandler extends GroupApi {
  private final GroupCoordinator coordinator;
  private final ShareAdmin shares;

  DeleteGroupsHandler(ShareAdmin shares) {
    super(ApiKeys.DELETE_GROUPS);
    this.coordinator = shares.coordinator();
    this.shares = shares;
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
          deleteShareState(groupId)
              .thenCompose(
                  shareError ->
                      shareError != Errors.NONE
                          ? CompletableFuture.completedFuture(shareError)
                          : coordinator.run(groupId, shard -> shard.listings().delete(groupId)))
              .handle(
                  (error, failure) ->
                      result.setErrorCode(
                          failure != null ? errorOf(failure).code() : error.code())));
    }
    return all(results);
  }

  /**
   * Deletes the state of an empty share group's share-partitions; NONE at once for any other group
   * (the shard's delete answers for it).
   */
  private CompletableFuture<Errors> deleteShareState(String groupId) {
    return shares
        .onShard(groupId, share -> CompletableFuture.completedFuture(share.adminView(groupId)))
        .thenCompose(
            view ->
                view.error() != Errors.NONE || !view.empty()
                    ? CompletableFuture.completedFuture(Errors.NONE)
                    : shares.deleteState(groupId, ShareAdmin.all(view)));
  }

  private static CompletionStage<ApiMessage> all(
      List<CompletableFuture<DeletableGroupResult>> results) {
    return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              DeleteGroupsResponseData response = new DeleteGroupsResponseData();
              results.forEach(r -> response.results().add(r.join()));
              return response;
            });
  }
}
