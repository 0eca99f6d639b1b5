package io.brook.coordinator.group.assignor;

import java.util.Comparator;
import org.apache.kafka.common.Uuid;

/** One partition of a topic, named by the topic's id as the consumer protocol names it. */
public record TopicIdPartition(Uuid topicId, int partition)
    implements Comparable<TopicIdPartition> {
  private static final Comparator<TopicIdPartition> ORDER =
      Comparator.comparing(TopicIdPartition::topicId).thenComparingInt(TopicIdPartition::partition);

  @Override
  public int compareTo(TopicIdPartition other) {
    return ORDER.compare(this, other);
  }
}
