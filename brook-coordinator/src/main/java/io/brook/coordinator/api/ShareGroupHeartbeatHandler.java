package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.service.RequestInfo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareGroupHeartbeat (KIP-932): routed to the shard that owns the group. As in Kafka, share groups
 * are served only while the cluster's {@code share.version} feature is at least 1; below that the
 * answer is UNSUPPORTED_VERSION.
 */
public final class ShareGroupHeartbeatHandler extends GroupApi {
  /** Kafka's feature gating share groups. */
  public static final String SHARE_VERSION = "share.version";

  private final GroupCoordinator coordinator;

  public ShareGroupHeartbeatHandler(GroupCoordinator coordinator) {
    super(ApiKeys.SHARE_GROUP_HEARTBEAT);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    ShareGroupHeartbeatRequestData request = (ShareGroupHeartbeatRequestData) message;
    return coordinator
        .run(
            request.groupId() == null ? "" : request.groupId(),
            shard -> {
              if (shard.context().image().featureLevel(SHARE_VERSION) < 1) {
                return CompletableFuture.completedFuture(
                    new ShareGroupHeartbeatResponseData()
                        .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                        .setErrorMessage("Share groups are not enabled (share.version is 0)."));
              }
              return shard.share().heartbeat(context.clientId(), context.clientHost(), request);
            })
        .handle(
            (response, failure) -> {
              if (failure == null) {
                return response;
              }
              Errors error = CoordinatorErrors.map(failure);
              return new ShareGroupHeartbeatResponseData()
                  .setErrorCode(error.code())
                  .setErrorMessage(error.message());
            });
  }
}
