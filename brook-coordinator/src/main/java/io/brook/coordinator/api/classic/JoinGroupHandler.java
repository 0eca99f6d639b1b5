package io.brook.coordinator.api.classic;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.classic.ClassicMember;
import io.brook.coordinator.group.classic.ClassicRequests;
import io.brook.coordinator.group.classic.JoinResult;
import io.brook.coordinator.service.RequestInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * JoinGroup v0 and up. Version 0 has no rebalance timeout (the session timeout serves as one); from
 * version 4 a first join without a member id gets MEMBER_ID_REQUIRED and an id (KIP-394); protocol
 * type and name are answered from version 7.
 */
public final class JoinGroupHandler extends ClassicApi {
  private static final short REQUIRE_KNOWN_MEMBER_ID_VERSION = 4;
  private static final short NULLABLE_PROTOCOL_NAME_VERSION = 7;

  public JoinGroupHandler(GroupCoordinator coordinator) {
    super(ApiKeys.JOIN_GROUP, coordinator);
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    JoinGroupRequestData request = (JoinGroupRequestData) message;
    short version = context.apiVersion();
    if (!isValidGroupId(request.groupId())) {
      return CompletableFuture.completedFuture(
          toResponse(JoinResult.error(request.memberId(), Errors.INVALID_GROUP_ID), version));
    }
    List<ClassicMember.Protocol> protocols = new ArrayList<>();
    for (JoinGroupRequestData.JoinGroupRequestProtocol p : request.protocols()) {
      protocols.add(new ClassicMember.Protocol(p.name(), p.metadata()));
    }
    ClassicRequests.Join join =
        new ClassicRequests.Join(
            request.groupId(),
            request.memberId(),
            request.groupInstanceId(),
            request.protocolType(),
            protocols,
            request.sessionTimeoutMs(),
            version == 0 ? request.sessionTimeoutMs() : request.rebalanceTimeoutMs(),
            context.clientId() == null ? "" : context.clientId(),
            context.clientHost(),
            version >= REQUIRE_KNOWN_MEMBER_ID_VERSION,
            context.connectionId(),
            request.reason());
    return onShard(request.groupId(), classic -> classic.join(join))
        .thenApply(result -> toResponse(result, version));
  }

  static JoinGroupResponseData toResponse(JoinResult result, short version) {
    boolean nullable = version >= NULLABLE_PROTOCOL_NAME_VERSION;
    JoinGroupResponseData response =
        new JoinGroupResponseData()
            .setErrorCode(result.error().code())
            .setGenerationId(result.generationId())
            .setProtocolType(nullable ? result.protocolType() : null)
            .setProtocolName(
                result.protocolName() == null && !nullable ? "" : result.protocolName())
            .setLeader(result.leaderId() == null ? "" : result.leaderId())
            .setMemberId(result.memberId() == null ? "" : result.memberId());
    for (JoinResult.JoinedMember m : result.members()) {
      response
          .members()
          .add(
              new JoinGroupResponseData.JoinGroupResponseMember()
                  .setMemberId(m.memberId())
                  .setGroupInstanceId(m.groupInstanceId())
                  .setMetadata(m.metadata()));
    }
    return response;
  }
}
