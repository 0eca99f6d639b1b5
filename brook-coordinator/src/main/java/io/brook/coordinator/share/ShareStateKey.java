package io.brook.coordinator.share;

import org.apache.kafka.common.Uuid;

/**
 * A share-partition: one share group's state on one partition of a topic.
 *
 * @param partition the partition of the topic (not of {@code __share_group_state})
 */
public record ShareStateKey(String groupId, Uuid topicId, int partition) {
  /**
   * The key FindCoordinator (key type SHARE) is asked with and {@code __share_group_state} is
   * partitioned by, as Kafka forms it: {@code groupId:topicId:partition}.
   */
  public String coordinatorKey() {
    return coordinatorKey(groupId, topicId, partition);
  }

  public static String coordinatorKey(String groupId, Uuid topicId, int partition) {
    return groupId + ":" + topicId + ":" + partition;
  }
}
