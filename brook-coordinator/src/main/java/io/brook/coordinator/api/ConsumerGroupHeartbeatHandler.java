package io.brook.coordinator.api;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.consumer.CoordinatorErrors;
import io.brook.coordinator.group.consumer.HeartbeatClient;
import io.brook.coordinator.service.RequestInfo;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** ConsumerGroupHeartbeat (KIP-848): routed to the shard that owns the group. */
public final class ConsumerGroupHeartbeatHandler extends GroupApi {
  private final GroupCoordinator coordinator;

  public ConsumerGroupHeartbeatHandler(GroupCoordinator coordinator) {
    super(ApiKeys.CONSUMER_GROUP_HEARTBEAT);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    ConsumerGroupHeartbeatRequestData request = (ConsumerGroupHeartbeatRequestData) message;
    HeartbeatClient client =
        new HeartbeatClient(
            context.clientId(), context.clientHost(), context.connectionId(), context.apiVersion());
    return coordinator
        .run(request.groupId(), shard -> shard.consumer().heartbeat(client, request))
        .handle(
            (response, failure) -> {
              if (failure == null) {
                return response;
              }
              Errors error = CoordinatorErrors.map(failure);
              return new ConsumerGroupHeartbeatResponseData()
                  .setErrorCode(error.code())
                  .setErrorMessage(error.message());
            });
  }
}
