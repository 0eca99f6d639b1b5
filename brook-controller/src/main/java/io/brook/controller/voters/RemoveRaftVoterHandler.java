package io.brook.controller.voters;

import io.brook.broker.api.KafkaApi;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.RequestContext;
import io.brook.quorum.ClusterQuorum;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.kafka.common.message.RemoveRaftVoterRequestData;
import org.apache.kafka.common.message.RemoveRaftVoterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * RemoveRaftVoter ({@code kafka-metadata-quorum remove-controller}, {@code Admin.removeRaftVoter}):
 * removes a voter, named by node id and directory id. Brokers forward it to the active controller;
 * the answer comes once the smaller voter set is committed. Removing the last voter, or one that is
 * not in the set, is {@code VOTER_NOT_FOUND}, as in Kafka.
 */
public final class RemoveRaftVoterHandler extends KafkaApi {
  private final ClusterQuorum quorum;
  private final Supplier<MetadataImage> image;

  public RemoveRaftVoterHandler(ClusterQuorum quorum, Supplier<MetadataImage> image) {
    super(ApiKeys.REMOVE_RAFT_VOTER);
    this.quorum = quorum;
    this.image = image;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
    RemoveRaftVoterRequestData request = (RemoveRaftVoterRequestData) message;
    Optional<ApiError> refused = VoterRequests.checkClusterId(image, request.clusterId());
    if (refused.isPresent()) {
      return CompletableFuture.completedFuture(response(refused.get()));
    }
    return quorum
        .removeVoter(request.voterId(), request.voterDirectoryId())
        .thenApply(RemoveRaftVoterHandler::response);
  }

  private static ApiMessage response(ApiError error) {
    return new RemoveRaftVoterResponseData()
        .setErrorCode(error.error().code())
        .setErrorMessage(error.message());
  }
}
