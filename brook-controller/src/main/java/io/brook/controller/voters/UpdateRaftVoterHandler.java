package io.brook.controller.voters;

import io.brook.broker.api.KafkaApi;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.RequestContext;
import io.brook.quorum.ClusterQuorum;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.kafka.common.message.UpdateRaftVoterRequestData;
import org.apache.kafka.common.message.UpdateRaftVoterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * UpdateRaftVoter: a voter tells the leader its new endpoint. Kafka serves it on controllers only
 * (voters send it themselves); Brook serves it on the controller channel only, never on a broker
 * listener. An unknown voter is {@code VOTER_NOT_FOUND}, a request without the controller listener
 * {@code INVALID_REQUEST}. The answer names the leader, as Kafka's does.
 */
public final class UpdateRaftVoterHandler extends KafkaApi {
  private final ClusterQuorum quorum;
  private final Supplier<MetadataImage> image;
  private final String controllerListener;

  public UpdateRaftVoterHandler(
      ClusterQuorum quorum, Supplier<MetadataImage> image, String controllerListener) {
    super(ApiKeys.UPDATE_RAFT_VOTER);
    this.quorum = quorum;
    this.image = image;
    this.controllerListener = controllerListener;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    UpdateRaftVoterRequestData request = (UpdateRaftVoterRequestData) message;
    Optional<ApiError> refused = VoterRequests.checkClusterId(image, request.clusterId());
    if (refused.isPresent()) {
      return CompletableFuture.completedFuture(response(refused.get()));
    }
    UpdateRaftVoterRequestData.Listener listener = request.listeners().find(controllerListener);
    if (listener == null) {
      return CompletableFuture.completedFuture(
          response(VoterRequests.missingListener(controllerListener, request.listeners())));
    }
    return quorum
        .updateVoter(
            request.voterId(),
            request.voterDirectoryId(),
            VoterRequests.endpoint(listener.host(), listener.port()))
        .thenApply(this::response);
  }

  private ApiMessage response(ApiError error) {
    UpdateRaftVoterResponseData response =
        new UpdateRaftVoterResponseData().setErrorCode(error.error().code());
    OptionalInt leader = quorum.activeControllerId();
    response.currentLeader().setLeaderId(leader.orElse(-1));
    return response;
  }
}
