package io.brook.controller.state;

import io.brook.metadata.controller.ApiError;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * The answer to one topic of {@code CreateTopics}.
 *
 * @param name the topic's name
 * @param topicId the new topic's id; {@link Uuid#ZERO_UUID} on error or when only validating
 * @param numPartitions the topic's partitions, -1 on error
 * @param replicationFactor the topic's replication factor, -1 on error
 * @param error {@link ApiError#NONE} or why the topic was not created
 */
public record TopicResult(
    String name, Uuid topicId, int numPartitions, short replicationFactor, ApiError error) {
  public TopicResult {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(topicId, "topicId");
    Objects.requireNonNull(error, "error");
  }

  static TopicResult failed(String name, ApiError error) {
    return new TopicResult(name, Uuid.ZERO_UUID, -1, (short) -1, error);
  }
}
