package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.service.RequestInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * A describe API of the modern group protocols (ConsumerGroupDescribe, ShareGroupDescribe): each
 * group is described by its own shard, in request order; an invalid id answers INVALID_GROUP_ID and
 * a shard that cannot answer the coordinator error, for that group only.
 *
 * @param <D> the response's described-group class
 */
abstract class GroupDescribeApi<D> extends GroupApi {
  private final GroupCoordinator coordinator;

  GroupDescribeApi(ApiKeys apiKey, GroupCoordinator coordinator) {
    super(apiKey);
    this.coordinator = coordinator;
  }

  /** The group ids the request names. */
  abstract List<String> groupIds(ApiMessage request);

  /** Describes one group on its shard (GROUP_ID_NOT_FOUND inside when it is not of this kind). */
  abstract D describe(GroupCoordinatorShard shard, String groupId);

  /** The described group answering {@code error} for {@code groupId}. */
  abstract D failed(String groupId, Errors error, String message);

  /** The response holding {@code groups}. */
  abstract ApiMessage respond(List<D> groups);

  @Override
  public final CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    List<CompletableFuture<D>> futures = new ArrayList<>();
    for (String groupId : groupIds(message)) {
      futures.add(describe(groupId));
    }
    return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              List<D> groups = new ArrayList<>(futures.size());
              futures.forEach(f -> groups.add(f.join()));
              return respond(groups);
            });
  }

  private CompletableFuture<D> describe(String groupId) {
    if (!isValidGroupId(groupId)) {
      return CompletableFuture.completedFuture(
          failed(groupId, Errors.INVALID_GROUP_ID, "Group id can't be empty."));
    }
    return coordinator
        .run(groupId, shard -> CompletableFuture.completedFuture(describe(shard, groupId)))
        .handle(
            (described, failure) -> {
              if (failure == null) {
                return described;
              }
              Errors error = CoordinatorErrors.map(failure);
              return failed(groupId, error, error.message());
            });
  }
}
