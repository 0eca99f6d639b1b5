package io.brook.controller.state;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One topic of a CreateTopics request.
 *
 * @param name the topic's name
 * @param numPartitions partitions, or -1 for the default
 * @param replicationFactor replicas, or -1 for the default
 * @param manualAssignment replicas by partition index; empty for automatic placement
 * @param configs config overrides
 */
public record NewTopic(
    String name,
    int numPartitions,
    short replicationFactor,
    Map<Integer, List<Integer>> manualAssignment,
    Map<String, String> configs) {
  public NewTopic {
    Objects.requireNonNull(name, "name");
    manualAssignment = Map.copyOf(manualAssignment);
    Objects.requireNonNull(configs, "configs");
  }
}
