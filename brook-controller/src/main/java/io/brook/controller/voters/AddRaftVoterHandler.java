package io.brook.controller.voters;

import io.brook.broker.api.KafkaApi;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.RequestContext;
import io.brook.quorum.ClusterQuorum;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.kafka.common.message.AddRaftVoterRequestData;
import org.apache.kafka.common.message.AddRaftVoterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AddRaftVoter ({@code kafka-metadata-quorum add-controller}, {@code Admin.addRaftVoter}): makes an
 * observer controller a voter. Brokers forward it to the active controller, as Kafka 4.x's do; the
 * answer comes once the new voter set is committed (Brook always acknowledges on commit, the
 * version 1 default).
 */
public final class AddRaftVoterHandler extends KafkaApi {
  private final ClusterQuorum quorum;
  private final Supplier<MetadataImage> image;
  private final String controllerListener;

  /** The wait for the commit when a request gives none (Kafka's Admin always gives one). */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * @param controllerListener the first of {@code controller.listener.names}: the listener whose
   *     endpoint the new voter is reached at
   */
  public AddRaftVoterHandler(
      ClusterQuorum quorum, Supplier<MetadataImage> image, String controllerListener) {
    super(ApiKeys.ADD_RAFT_VOTER);
    this.quorum = quorum;
    this.image = image;
    this.controllerListener = controllerListener;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    AddRaftVoterRequestData request = (AddRaftVoterRequestData) message;
    Optional<ApiError> refused = VoterRequests.checkClusterId(image, request.clusterId());
    if (refused.isPresent()) {
      return CompletableFuture.completedFuture(response(refused.get()));
    }
    AddRaftVoterRequestData.Listener listener = request.listeners().find(controllerListener);
    if (listener == null) {
      return CompletableFuture.completedFuture(
          response(VoterRequests.missingListener(controllerListener, request.listeners())));
    }
    Duration timeout =
        request.timeoutMs() > 0 ? Duration.ofMillis(request.timeoutMs()) : DEFAULT_TIMEOUT;
    return quorum
        .addVoter(
            request.voterId(),
            request.voterDirectoryId(),
            VoterRequests.endpoint(listener.host(), listener.port()),
            timeout)
        .thenApply(AddRaftVoterHandler::response);
  }

  private static ApiMessage response(ApiError error) {
    return new AddRaftVoterResponseData()
        .setErrorCode(error.error().code())
        .setErrorMessage(error.message());
  }
}
