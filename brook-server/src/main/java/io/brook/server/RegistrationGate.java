package io.brook.server;

import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds metadata back from what acts on leaderships (the replica manager, the coordinators) until
 * the metadata shows this process's own registration. Before that, the metadata a restarted broker
 * has is what it had before it stopped, and may still name it leader in epochs its last process
 * held: acting on it, it would serve and write as that leader (load a coordinator's state from an
 * unreplicated log tail, send transaction markers from it) while the controller moves those
 * leaderships to other brokers. The controller moves them in the same records that register the new
 * process, so once the registration is in the metadata, the old leaderships are gone from it.
 * Kafka's brokers likewise apply metadata only after registering and catching up.
 */
final class RegistrationGate {
  private static final Logger log = LoggerFactory.getLogger(RegistrationGate.class);

  private final int nodeId;
  private final Uuid incarnationId;
  private volatile boolean open;

  /**
   * @param broker whether this node is a broker: a controller-only node registers nothing and holds
   *     nothing back
   */
  RegistrationGate(int nodeId, Uuid incarnationId, boolean broker) {
    this.nodeId = nodeId;
    this.incarnationId = incarnationId;
    this.open = !broker;
  }

  /** Whether {@code image} may be acted on: it (or one before it) holds this registration. */
  boolean admits(MetadataImage image) {
    if (!open) {
      BrokerRegistration registration = image.brokers().get(nodeId);
      open = registration != null && registration.incarnationId().equals(incarnationId);
      if (open) {
        // Between "Broker registering" and this line the broker leads and follows nothing.
        log.info(
            "Metadata holds this broker's registration, acting on it brokerId={}"
                + " incarnationId={} metadataOffset={}",
            nodeId,
            incarnationId,
            image.offset());
      }
    }
    return open;
  }

  /** {@code listener}, given only the images this gate admits. */
  Consumer<MetadataImage> guard(Consumer<MetadataImage> listener) {
    return image -> {
      if (admits(image)) {
        listener.accept(image);
      }
    };
  }
}
