package io.brook.coordinator.api.classic;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.classic.ClassicRequests;
import io.brook.coordinator.group.classic.SyncResult;
import io.brook.coordinator.service.RequestInfo;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * SyncGroup v0 and up: the leader hands in the assignment, which is written to the group record;
 * every member gets its part once that write is durable. Protocol type and name are checked and
 * answered from version 5.
 */
public final class SyncGroupHandler extends ClassicApi {
  public SyncGroupHandler(GroupCoordinator coordinator) {
    super(ApiKeys.SYNC_GROUP, coordinator);
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    SyncGroupRequestData request = (SyncGroupRequestData) message;
    if (!isValidGroupId(request.groupId())) {
      return CompletableFuture.completedFuture(
          toResponse(SyncResult.error(Errors.INVALID_GROUP_ID)));
    }
    Map<String, byte[]> assignments = new LinkedHashMap<>();
    for (SyncGroupRequestData.SyncGroupRequestAssignment a : request.assignments()) {
      assignments.put(a.memberId(), a.assignment());
    }
    ClassicRequests.Sync sync =
        new ClassicRequests.Sync(
            request.groupId(),
            request.memberId(),
            request.groupInstanceId(),
            request.generationId(),
            request.protocolType(),
            request.protocolName(),
            assignments,
            context.connectionId());
    return onShard(request.groupId(), classic -> classic.sync(sync))
        .thenApply(SyncGroupHandler::toResponse);
  }

  private static SyncGroupResponseData toResponse(SyncResult result) {
    return new SyncGroupResponseData()
        .setErrorCode(result.error().code())
        .setProtocolType(result.protocolType())
        .setProtocolName(result.protocolName())
        .setAssignment(result.assignment());
  }
}
