package io.brook.coordinator.api.classic;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.classic.ClassicGroupManager.DescribedGroup;
import io.brook.coordinator.group.classic.ClassicGroupManager.DescribedMember;
import io.brook.coordinator.service.RequestInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeGroups v0 and up, for classic groups. As in Kafka, an unknown id (or a group of the
 * consumer protocol, which ConsumerGroupDescribe describes) is answered as state "Dead": with error
 * NONE before version 6 and GROUP_ID_NOT_FOUND from version 6 (KIP-1043); a group that only has
 * committed offsets is "Empty" with protocol type "".
 */
public final class DescribeGroupsHandler extends ClassicApi {
  private static final short GROUP_NOT_FOUND_VERSION = 6;

  public DescribeGroupsHandler(GroupCoordinator coordinator) {
    super(ApiKeys.DESCRIBE_GROUPS, coordinator);
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    DescribeGroupsRequestData request = (DescribeGroupsRequestData) message;
    short version = context.apiVersion();
    List<CompletableFuture<DescribeGroupsResponseData.DescribedGroup>> futures = new ArrayList<>();
    for (String groupId : request.groups()) {
      futures.add(describe(groupId, version));
    }
    return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              DescribeGroupsResponseData response = new DescribeGroupsResponseData();
              futures.forEach(f -> response.groups().add(f.join()));
              return response;
            });
  }

  private CompletableFuture<DescribeGroupsResponseData.DescribedGroup> describe(
      String groupId, short version) {
    if (!isValidGroupId(groupId)) {
      return CompletableFuture.completedFuture(failed(groupId, Errors.INVALID_GROUP_ID, null));
    }
    return onShard(groupId, classic -> CompletableFuture.completedFuture(classic.describe(groupId)))
        .handle(
            (described, error) -> {
              if (error != null) {
                Throwable cause = error.getCause() != null ? error.getCause() : error;
                Errors errors =
                    cause instanceof ApiException
                        ? Errors.forException(cause)
                        : Errors.UNKNOWN_SERVER_ERROR;
                return failed(groupId, errors, null);
              }
              return toGroup(described, version);
            });
  }

  private static DescribeGroupsResponseData.DescribedGroup failed(
      String groupId, Errors error, String message) {
    return new DescribeGroupsResponseData.DescribedGroup()
        .setGroupId(groupId)
        .setErrorCode(error.code())
        .setErrorMessage(message)
        .setGroupState("")
        .setProtocolType("")
        .setProtocolData("");
  }

  private static DescribeGroupsResponseData.DescribedGroup toGroup(
      DescribedGroup described, short version) {
    DescribeGroupsResponseData.DescribedGroup group =
        new DescribeGroupsResponseData.DescribedGroup()
            .setGroupId(described.groupId())
            .setGroupState(described.state())
            .setProtocolType(described.protocolType())
            .setProtocolData(described.protocolData());
    if (!described.found() && version >= GROUP_NOT_FOUND_VERSION) {
      group
          .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
          .setErrorMessage("Group " + described.groupId() + " not found.");
    }
    for (DescribedMember m : described.members()) {
      group
          .members()
          .add(
              new DescribeGroupsResponseData.DescribedGroupMember()
                  .setMemberId(m.memberId())
                  .setGroupInstanceId(m.groupInstanceId())
                  .setClientId(m.clientId())
                  .setClientHost(m.clientHost())
                  .setMemberMetadata(m.metadata())
                  .setMemberAssignment(m.assignment()));
    }
    return group;
  }
}
