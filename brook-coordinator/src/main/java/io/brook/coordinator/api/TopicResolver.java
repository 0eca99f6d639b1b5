package io.brook.coordinator.api;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Resolves the topic of a request that names it (older versions) or gives its id (newer ones)
 * against the broker's metadata image.
 */
final class TopicResolver {
  private final MetadataImage image;

  TopicResolver(MetadataImage image) {
    this.image = image;
  }

  /** The topic's name, or why it cannot be used: UNKNOWN_TOPIC_ID or UNKNOWN_TOPIC_OR_PARTITION. */
  record Resolved(String name, Uuid id, Errors error) {}

  Resolved resolve(String name, Uuid id, boolean byId) {
    Optional<TopicImage> topic = byId ? image.topic(id) : image.topic(name);
    if (topic.isEmpty()) {
      return new Resolved(
          name, id, byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    return new Resolved(topic.get().name(), topic.get().id(), Errors.NONE);
  }

  boolean partitionExists(String topic, int partition) {
    return image.partition(topic, partition).isPresent();
  }

  Optional<Uuid> idOf(String topic) {
    return image.topic(topic).map(TopicImage::id);
  }
}
