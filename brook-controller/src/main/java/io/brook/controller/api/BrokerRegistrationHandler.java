package io.brook.controller.api;

import io.brook.broker.api.ApiFailure;
import io.brook.broker.api.KafkaApi;
import io.brook.controller.state.BrokerSessions;
import io.brook.controller.state.ClusterController;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * BrokerRegistration, a controller API: records the broker fenced with a new epoch and starts its
 * session. Served only over the controller channel, never on a client listener.
 */
public final class BrokerRegistrationHandler extends KafkaApi {
  private final MetadataQuorum quorum;
  private final ClusterController controller;
  private final BrokerSessions sessions;
  private final String clusterId;

  public BrokerRegistrationHandler(
      MetadataQuorum quorum,
      ClusterController controller,
      BrokerSessions sessions,
      String clusterId) {
    super(ApiKeys.BROKER_REGISTRATION);
    this.quorum = quorum;
    this.controller = controller;
    this.sessions = sessions;
    this.clusterId = clusterId;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    BrokerRegistrationRequestData request = (BrokerRegistrationRequestData) message;
    if (!clusterId.equals(request.clusterId())) {
      return CompletableFuture.completedFuture(
          new BrokerRegistrationResponseData().setErrorCode(Errors.INCONSISTENT_CLUSTER_ID.code()));
    }
    List<BrokerEndpoint> endpoints = new ArrayList<>();
    for (BrokerRegistrationRequestData.Listener l : request.listeners()) {
      endpoints.add(
          new BrokerEndpoint(
              l.name(), l.host(), l.port(), SecurityProtocol.forId(l.securityProtocol()).name));
    }
    int brokerId = request.brokerId();
    sessions.touch(brokerId);
    return quorum
        .submitAsync(
            image ->
                controller.registerBrokerFenced(
                    brokerId,
                    request.incarnationId(),
                    endpoints,
                    Optional.ofNullable(request.rack()),
                    request.previousBrokerEpoch()))
        .handle(
            (epoch, failure) -> {
              BrokerRegistrationResponseData response = new BrokerRegistrationResponseData();
              if (failure != null) {
                return response.setErrorCode(ApiFailure.of(failure).code());
              }
              return response.setBrokerEpoch(epoch);
            });
  }
}
