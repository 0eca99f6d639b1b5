package io.brook.coordinator.api.classic;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.classic.ClassicRequests;
import io.brook.coordinator.service.RequestInfo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** Heartbeat v0 and up: keeps a member's session; REBALANCE_IN_PROGRESS asks it to rejoin. */
public final class HeartbeatHandler extends ClassicApi {
  public HeartbeatHandler(GroupCoordinator coordinator) {
    super(ApiKeys.HEARTBEAT, coordinator);
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    HeartbeatRequestData request = (HeartbeatRequestData) message;
    if (!isValidGroupId(request.groupId())) {
      return CompletableFuture.completedFuture(
          new HeartbeatResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
    }
    ClassicRequests.Heartbeat heartbeat =
        new ClassicRequests.Heartbeat(
            request.groupId(),
            request.memberId(),
            request.groupInstanceId(),
            request.generationId(),
            context.connectionId());
    return onShard(
            request.groupId(),
            classic -> CompletableFuture.completedFuture(classic.heartbeat(heartbeat)))
        .thenApply(error -> new HeartbeatResponseData().setErrorCode(error.code()));
  }
}
