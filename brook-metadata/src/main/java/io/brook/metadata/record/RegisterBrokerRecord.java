package io.brook.metadata.record;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * A broker registered, or registered again with a new epoch. Replaces any earlier registration of
 * the same id; the new epoch must be higher than the old one.
 *
 * @param brokerId the broker's id
 * @param incarnationId a random id the broker chose when its process started
 * @param brokerEpoch the epoch of this registration; higher than any earlier one of this broker
 * @param endpoints the listeners the broker advertises
 * @param rack the broker's rack, if configured
 * @param fenced whether the broker starts fenced (not eligible as leader or ISR member)
 */
public record RegisterBrokerRecord(
    int brokerId,
    Uuid incarnationId,
    long brokerEpoch,
    List<BrokerEndpoint> endpoints,
    Optional<String> rack,
    boolean fenced)
    implements MetadataRecord {
  public RegisterBrokerRecord {
    Objects.requireNonNull(incarnationId, "incarnationId");
    endpoints = List.copyOf(endpoints);
    Objects.requireNonNull(rack, "rack");
  }
}
