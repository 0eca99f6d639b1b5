package io.brook.broker.api;

import io.brook.broker.auth.RequestAuthorizer;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.RequestContext;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

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

  /**
   * As {@link #find}, for a request that must be allowed {@code operation} on the topic: a topic
   * named by name is authorized before it is looked for, so a denied principal learns nothing of
   * its existence (TOPIC_AUTHORIZATION_FAILED either way), as in Kafka; one named by an unknown id
   * stays UNKNOWN_TOPIC_ID.
   */
  static Lookup findAuthorized(
      MetadataImage image,
      String name,
      Uuid topicId,
      RequestAuthorizer authorizer,
      RequestContext context,
      AclOperation operation) {
    Lookup lookup = find(image, name, topicId);
    String resolved = lookup.found() ? lookup.topic().name() : lookup.byName() ? name : null;
    if (resolved != null
        && !authorizer.authorize(context, operation, ResourceType.TOPIC, resolved)) {
      return new Lookup(null, Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    return lookup;
  }

  record Lookup(TopicImage topic, Errors error) {
    boolean found() {
      return topic != null;
    }

    private boolean byName() {
      return error == Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }
  }
}
