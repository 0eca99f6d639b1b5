package io.brook.coordinator.group.consumer;

import io.brook.coordinator.group.assignor.AssignmentSpec;
import io.brook.coordinator.group.assignor.GroupAssignment;
import io.brook.coordinator.group.assignor.MemberSpec;
import io.brook.coordinator.group.assignor.PartitionAssignor;
import io.brook.coordinator.group.assignor.TopicIdPartition;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * Computes a group's new target assignment when its epoch moved past the assignment epoch, and the
 * records that persist it: one per member whose target changed, then the new assignment epoch.
 * Members that left with epoch -2 (static members expected back) keep their place in it.
 */
final class TargetAssignments {
  private TargetAssignments() {}

  static List<CoordinatorRecord> update(
      ConsumerGroup group, PartitionAssignor assignor, SubscriptionResolver resolver) {
    TreeMap<String, MemberSpec> members = new TreeMap<>();
    Map<Uuid, Integer> counts = new TreeMap<>();
    group
        .subscriptionMetadata()
        .values()
        .forEach(topic -> counts.put(topic.id(), topic.numPartitions()));
    for (ConsumerGroupMember member : group.members().values()) {
      Set<Uuid> topics = new HashSet<>();
      for (TopicMetadata topic : group.subscriptionMetadata().values()) {
        if (resolver.subscribes(member.subscription(), topic.name())) {
          topics.add(topic.id());
        }
      }
      members.put(
          member.memberId(),
          new MemberSpec(
              member.instanceId(),
              member.subscription().rackId(),
              topics,
              group.targetAssignment(member.memberId())));
    }
    GroupAssignment assignment = assignor.assign(AssignmentSpec.of(members, counts));
    List<CoordinatorRecord> records = new ArrayList<>();
    for (String memberId : members.keySet()) {
      SortedSet<TopicIdPartition> target = assignment.of(memberId);
      if (!target.equals(group.targetAssignment(memberId))) {
        records.add(ConsumerGroupRecords.targetAssignment(group.groupId(), memberId, target));
      }
    }
    records.add(ConsumerGroupRecords.targetAssignmentEpoch(group.groupId(), group.groupEpoch()));
    return records;
  }
}
