package io.brook.coordinator.group.assignor;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The output of an assignor: the target partitions of every member.
 *
 * @param members member id to its target partitions
 */
public record GroupAssignment(SortedMap<String, SortedSet<TopicIdPartition>> members) {
  public GroupAssignment {
    TreeMap<String, SortedSet<TopicIdPartition>> copy = new TreeMap<>();
    members.forEach(
        (id, partitions) ->
            copy.put(id, Collections.unmodifiableSortedSet(new TreeSet<>(partitions))));
    members = Collections.unmodifiableSortedMap(copy);
  }

  public static GroupAssignment of(
      Map<String, ? extends java.util.Collection<TopicIdPartition>> m) {
    TreeMap<String, SortedSet<TopicIdPartition>> copy = new TreeMap<>();
    m.forEach((id, partitions) -> copy.put(id, new TreeSet<>(partitions)));
    return new GroupAssignment(copy);
  }

  public SortedSet<TopicIdPartition> of(String memberId) {
    return members.getOrDefault(memberId, Collections.emptySortedSet());
  }
}
