package io.brook.controller.voters;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.MetadataImage;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;

/** What the three voter-change handlers check the same way before the quorum decides. */
final class VoterRequests {
  private VoterRequests() {}

  /**
   * A request naming another cluster is refused, as Kafka's controller refuses it; a null cluster
   * id (older clients) is accepted.
   */
  static Optional<ApiError> checkClusterId(Supplier<MetadataImage> image, String requested) {
    Optional<String> clusterId = image.get().clusterId();
    if (requested != null && clusterId.isPresent() && !clusterId.get().equals(requested)) {
      return Optional.of(
          new ApiError(
              Errors.INCONSISTENT_CLUSTER_ID,
              "the request names cluster " + requested + ", this is " + clusterId.get()));
    }
    return Optional.empty();
  }

  /** The new voter's endpoint, as its controller listener was given. */
  static InetSocketAddress endpoint(String host, int port) {
    return InetSocketAddress.createUnresolved(host, port);
  }

  /** A request without the controller listener: Kafka's leader cannot reach that voter. */
  static ApiError missingListener(String listener, Object given) {
    return new ApiError(
        Errors.INVALID_REQUEST,
        "the voter's listeners " + given + " do not contain the controller listener " + listener);
  }
}
