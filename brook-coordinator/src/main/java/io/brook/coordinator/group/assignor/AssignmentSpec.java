package io.brook.coordinator.group.assignor;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * The input of an assignor.
 *
 * @param members the group's members by member id
 * @param partitionCounts the number of partitions of every topic some member subscribes to
 */
public record AssignmentSpec(
    SortedMap<String, MemberSpec> members, SortedMap<Uuid, Integer> partitionCounts) {
  public AssignmentSpec {
    members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
    partitionCounts = Collections.unmodifiableSortedMap(new TreeMap<>(partitionCounts));
  }

  public static AssignmentSpec of(Map<String, MemberSpec> members, Map<Uuid, Integer> counts) {
    return new AssignmentSpec(new TreeMap<>(members), new TreeMap<>(counts));
  }

  /** Whether every member subscribes to the same topics. */
  public boolean isHomogeneous() {
    return members.values().stream().map(MemberSpec::subscribedTopics).distinct().count() <= 1;
  }

  /** The partition count of {@code topicId}, 0 for a topic that does not exist. */
  public int partitionCount(Uuid topicId) {
    return partitionCounts.getOrDefault(topicId, 0);
  }
}
