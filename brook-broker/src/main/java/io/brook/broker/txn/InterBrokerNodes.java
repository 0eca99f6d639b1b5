package io.brook.broker.txn;

import io.brook.metadata.image.MetadataImage;
import java.util.Optional;
import org.apache.kafka.common.Node;

/**
 * Where broker-to-broker calls (transactions, share state) reach a broker: its inter-broker
 * endpoint.
 */
public final class InterBrokerNodes {
  private InterBrokerNodes() {}

  /** {@code broker}'s endpoint on {@code listener} in {@code image}; empty if it has none. */
  public static Optional<Node> of(MetadataImage image, int broker, String listener) {
    return image
        .broker(broker)
        .flatMap(b -> b.endpoint(listener))
        .map(e -> new Node(broker, e.host(), e.port()));
  }
}
