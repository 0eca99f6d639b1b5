package io.brook.coordinator.group.consumer;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A topic some member of a group subscribes to, as the group last saw it in the metadata image. A
 * change (topic created, deleted or recreated, partitions added) bumps the group epoch.
 */
public record TopicMetadata(Uuid id, String name, int numPartitions) {
  public TopicMetadata {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
  }
}
