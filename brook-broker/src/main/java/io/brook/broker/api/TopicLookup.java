package io.brook.broker.api;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Finds the topic a request names: by name in older versions, by topic id in newer ones (Fetch
 * v13+, Produce v13+).
 */
final class TopicLookup {
  private TopicLookup() {}

  /** The topic, or the error to answer with: UNKNOWN_TOPIC_ID or UNKNOWN_TOPIC_OR_PARTITION. */
  static Lookup find(MetadataImage image, String name, Uuid topicId) {
    boolean byId = topicId != null && !Uuid.ZERO_UUID.equals(topicId);
    Optional<TopicImage> topic = byId ? image.topic(topicId) : image.topic(name);
    if (topic.isPresent()) {
      return new Lookup(topic.get(), Errors.NONE);
    }
    return new Lookup(null, byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
  }

  record Lookup(TopicImage topic, Errors error) {
    boolean found() {
      return topic != null;
    }
  }
}
