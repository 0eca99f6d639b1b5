package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.controller.state.BrokerSessions;
import io.brook.controller.state.ClusterController;
import io.brook.controller.state.HeartbeatResult;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * BrokerHeartbeat, a controller API: keeps the broker's session alive, unfences it once its
 * metadata has caught up, and fences it on request ({@code wantShutDown}: controlled shutdown). The
 * failed log directories a broker lists ({@code OfflineLogDirs}) change nothing here: Brook records
 * no directory per replica, so the broker reports those replicas with AssignReplicasToDirs ({@link
 * AssignReplicasToDirsHandler}).
 */
public final class BrokerHeartbeatHandler extends KafkaApi {
  private final MetadataQuorum quorum;
  private final ClusterController controller;
  private final BrokerSessions sessions;

  public BrokerHeartbeatHandler(
      MetadataQuorum quorum, ClusterController controller, BrokerSessions sessions) {
    super(ApiKeys.BROKER_HEARTBEAT);
    this.quorum = quorum;
    this.controller = controller;
    this.sessions = sessions;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    BrokerHeartbeatRequestData request = (BrokerHeartbeatRequestData) message;
    sessions.touch(request.brokerId());
    return quorum
        .submitAsync(
            image ->
                controller.brokerHeartbeat(
                    request.brokerId(),
                    request.brokerEpoch(),
                    request.currentMetadataOffset(),
                    request.wantFence(),
                    request.wantShutDown()))
        .handle(
            (result, failure) -> {
              BrokerHeartbeatResponseData response = new BrokerHeartbeatResponseData();
              if (failure != null) {
                return response.setErrorCode(ApiFailure.of(failure).code()).setIsFenced(true);
              }
              return response(result, request, quorum.image().offset());
            });
  }

  private static ApiMessage response(
      HeartbeatResult result, BrokerHeartbeatRequestData request, long controllerOffset) {
    return new BrokerHeartbeatResponseData()
        .setErrorCode(result.error().error().code())
        .setIsFenced(result.fenced())
        .setShouldShutDown(result.shouldShutDown())
        .setIsCaughtUp(request.currentMetadataOffset() >= controllerOffset);
  }
}
