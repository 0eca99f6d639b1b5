package io.brook.coordinator.api.classic;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.classic.ClassicGroupManager.LeaveOutcome;
import io.brook.coordinator.group.classic.ClassicRequests;
import io.brook.coordinator.service.RequestInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * LeaveGroup v0 and up. Versions 0-2 name one member and answer one error; from version 3 a batch
 * of members (by member id and/or group.instance.id) each get their own error.
 */
public final class LeaveGroupHandler extends ClassicApi {
  private static final short BATCH_VERSION = 3;

  public LeaveGroupHandler(GroupCoordinator coordinator) {
    super(ApiKeys.LEAVE_GROUP, coordinator);
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    LeaveGroupRequestData request = (LeaveGroupRequestData) message;
    short version = context.apiVersion();
    if (!isValidGroupId(request.groupId())) {
      return CompletableFuture.completedFuture(
          new LeaveGroupResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
    }
    List<ClassicRequests.Leaving> leaving = new ArrayList<>();
    if (version < BATCH_VERSION) {
      leaving.add(new ClassicRequests.Leaving(request.memberId(), null, null));
    } else {
      for (LeaveGroupRequestData.MemberIdentity m : request.members()) {
        leaving.add(new ClassicRequests.Leaving(m.memberId(), m.groupInstanceId(), m.reason()));
      }
    }
    return onShard(
            request.groupId(),
            classic -> CompletableFuture.completedFuture(classic.leave(request.groupId(), leaving)))
        .thenApply(outcome -> toResponse(outcome, leaving, version));
  }

  private static LeaveGroupResponseData toResponse(
      LeaveOutcome outcome, List<ClassicRequests.Leaving> leaving, short version) {
    LeaveGroupResponseData response = new LeaveGroupResponseData();
    if (version < BATCH_VERSION) {
      Errors error =
          outcome.error() != Errors.NONE || outcome.memberErrors().isEmpty()
              ? outcome.error()
              : outcome.memberErrors().get(0);
      return response.setErrorCode(error.code());
    }
    response.setErrorCode(outcome.error().code());
    if (outcome.error() == Errors.NONE) {
      for (int i = 0; i < leaving.size(); i++) {
        response
            .members()
            .add(
                new LeaveGroupResponseData.MemberResponse()
                    .setMemberId(leaving.get(i).memberId())
                    .setGroupInstanceId(leaving.get(i).groupInstanceId())
                    .setErrorCode(outcome.memberErrors().get(i).code()));
      }
    }
    return response;
  }
}
