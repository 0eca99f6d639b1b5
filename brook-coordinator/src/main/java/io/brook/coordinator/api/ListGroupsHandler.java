package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.GroupListings.ListedGroup;
import io.brook.coordinator.service.RequestInfo;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListGroups: the groups coordinated by this broker, from every shard it has loaded, filtered by
 * state (v4+) and type (v5+). Admin clients ask every broker and merge the answers. If a shard is
 * still loading the answer says COORDINATOR_LOAD_IN_PROGRESS along with what is known.
 */
public final class ListGroupsHandler extends GroupApi {
  private static final short STATE_VERSION = 4;
  private static final short TYPE_VERSION = 5;

  private final GroupCoordinator coordinator;

  public ListGroupsHandler(GroupCoordinator coordinator) {
    super(ApiKeys.LIST_GROUPS);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    ListGroupsRequestData request = (ListGroupsRequestData) message;
    short version = context.apiVersion();
    Set<String> states = new HashSet<>(request.statesFilter());
    Set<String> types = new HashSet<>(request.typesFilter());
    List<CompletableFuture<List<ListedGroup>>> perShard =
        coordinator.runOnAll(
            shard -> CompletableFuture.completedFuture(shard.listings().list(states, types)));
    return CompletableFuture.allOf(perShard.toArray(CompletableFuture[]::new))
        .handle(
            (ignored, failure) -> {
              ListGroupsResponseData response = new ListGroupsResponseData();
              Errors error = Errors.NONE;
              for (CompletableFuture<List<ListedGroup>> shard : perShard) {
                if (shard.isCompletedExceptionally()) {
                  error = Errors.COORDINATOR_LOAD_IN_PROGRESS;
                  continue;
                }
                for (ListedGroup group : shard.join()) {
                  ListGroupsResponseData.ListedGroup out =
                      new ListGroupsResponseData.ListedGroup()
                          .setGroupId(group.groupId())
                          .setProtocolType(group.protocolType());
                  if (version >= STATE_VERSION) {
                    out.setGroupState(group.state());
                  }
                  if (version >= TYPE_VERSION) {
                    out.setGroupType(group.type().wireName());
                  }
                  response.groups().add(out);
                }
              }
              return response.setErrorCode(error.code());
            });
  }
}
