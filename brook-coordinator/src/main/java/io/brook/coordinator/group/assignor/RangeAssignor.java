package io.brook.coordinator.group.assignor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * The {@code range} assignor: per topic, the subscribers in a fixed order (static members by
 * instance id first, then member ids) each get one contiguous range of partitions, the first {@code
 * P % M} of them one more. Topics with the same subscribers and the same partition count are
 * therefore co-partitioned: partition i of each goes to the same member, which is what joins over
 * keyed topics need. Balance holds per topic, not over all topics; it is not sticky beyond the
 * member order being stable (static members keep their ranges across restarts).
 */
public final class RangeAssignor implements PartitionAssignor {
  public static final String NAME = "range";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public GroupAssignment assign(AssignmentSpec spec) {
    TreeMap<String, SortedSet<TopicIdPartition>> result = new TreeMap<>();
    Map<Uuid, List<String>> subscribers = new TreeMap<>();
    spec.members()
        .forEach(
            (id, member) -> {
              result.put(id, new TreeSet<>());
              for (Uuid topic : member.subscribedTopics()) {
                subscribers.computeIfAbsent(topic, t -> new ArrayList<>()).add(id);
              }
            });
    subscribers.forEach(
        (topic, members) -> {
          members.sort(Comparator.comparing(id -> spec.members().get(id).sortKey(id)));
          int count = spec.partitionCount(topic);
          int base = count / members.size();
          int extra = count % members.size();
          int next = 0;
          for (int i = 0; i < members.size(); i++) {
            int length = base + (i < extra ? 1 : 0);
            for (int p = next; p < next + length; p++) {
              result.get(members.get(i)).add(new TopicIdPartition(topic, p));
            }
            next += length;
          }
        });
    return new GroupAssignment(result);
  }
}
