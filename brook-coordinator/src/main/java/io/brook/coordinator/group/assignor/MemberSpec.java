package io.brook.coordinator.group.assignor;

import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * What an assignor knows of one member.
 *
 * @param instanceId the static member's {@code group.instance.id}, or null
 * @param rackId the member's rack, or null (not used by Brook's assignors yet)
 * @param subscribedTopics the ids of the topics the member subscribes to that exist
 * @param currentAssignment the partitions the member is currently assigned in the target
 */
public record MemberSpec(
    String instanceId,
    String rackId,
    Set<Uuid> subscribedTopics,
    SortedSet<TopicIdPartition> currentAssignment) {
  public MemberSpec {
    subscribedTopics = Set.copyOf(subscribedTopics);
    currentAssignment =
        java.util.Collections.unmodifiableSortedSet(new TreeSet<>(currentAssignment));
  }

  /** The key range-style assignors order members by: the instance id if static, else the member. */
  public String sortKey(String memberId) {
    return Objects.requireNonNullElse(instanceId, "") + "\u0000" + memberId;
  }
}
