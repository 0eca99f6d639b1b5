package io.brook.metadata.image;

import io.brook.metadata.record.BrokerEndpoint;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * A registered broker.
 *
 * @param id the broker's id
 * @param incarnationId the random id of the broker process that registered
 * @param epoch the registration's epoch
 * @param endpoints the advertised listeners
 * @param rack the broker's rack, if configured
 * @param fenced whether the broker is fenced (not eligible as leader or ISR member)
 */
public record BrokerRegistration(
    int id,
    Uuid incarnationId,
    long epoch,
    List<BrokerEndpoint> endpoints,
    Optional<String> rack,
    boolean fenced) {
  public BrokerRegistration {
    Objects.requireNonNull(incarnationId, "incarnationId");
    endpoints = List.copyOf(endpoints);
    Objects.requireNonNull(rack, "rack");
  }

  /** The endpoint of one listener, if the broker advertises it. */
  public Optional<BrokerEndpoint> endpoint(String listenerName) {
    return endpoints.stream().filter(e -> e.listenerName().equals(listenerName)).findFirst();
  }

  BrokerRegistration withFenced(boolean newFenced) {
    return new BrokerRegistration(id, incarnationId, epoch, endpoints, rack, newFenced);
  }
}
