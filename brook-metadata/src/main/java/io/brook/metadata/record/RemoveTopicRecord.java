package io.brook.metadata.record;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A topic was deleted, with all its partitions and its config overrides.
 *
 * @param topicId the id of the topic to remove
 */
public record RemoveTopicRecord(Uuid topicId) implements MetadataRecord {
  public RemoveTopicRecord {
    Objects.requireNonNull(topicId, "topicId");
  }
}
