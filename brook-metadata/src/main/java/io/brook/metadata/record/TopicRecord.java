package io.brook.metadata.record;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A topic was created. Its partitions follow as {@link PartitionRecord}s, its config overrides as
 * {@link ConfigRecord}s.
 *
 * @param name the topic's name, unique in the image
 * @param topicId the topic's id, unique in the image and never reused
 */
public record TopicRecord(String name, Uuid topicId) implements MetadataRecord {
  public TopicRecord {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(topicId, "topicId");
  }
}
