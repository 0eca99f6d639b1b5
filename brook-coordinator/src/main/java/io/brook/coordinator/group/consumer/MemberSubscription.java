package io.brook.coordinator.group.consumer;

import java.util.List;
import java.util.Objects;

/**
 * What a member told the coordinator about itself: the value of a member metadata record.
 *
 * @param instanceId {@code group.instance.id} of a static member, or null
 * @param rackId the client's rack, or null
 * @param clientId the client id of its last heartbeat
 * @param clientHost the address of its last heartbeat
 * @param subscribedTopicNames topic names it subscribes to, sorted (empty with a regex)
 * @param subscribedTopicRegex the regex it subscribes with, or null
 * @param rebalanceTimeoutMs how long it may take to revoke partitions ({@code
 *     max.poll.interval.ms})
 * @param serverAssignor the assignor it asked for, or null
 */
public record MemberSubscription(
    String instanceId,
    String rackId,
    String clientId,
    String clientHost,
    List<String> subscribedTopicNames,
    String subscribedTopicRegex,
    int rebalanceTimeoutMs,
    String serverAssignor) {
  /** A member that has told nothing yet. */
  public static final MemberSubscription EMPTY =
      new MemberSubscription(null, null, "", "", List.of(), null, -1, null);

  public MemberSubscription {
    Objects.requireNonNull(clientId, "clientId");
    Objects.requireNonNull(clientHost, "clientHost");
    subscribedTopicNames = subscribedTopicNames.stream().sorted().distinct().toList();
  }

  /** Whether the topics it subscribes to differ from {@code other}'s. */
  public boolean subscriptionDiffers(MemberSubscription other) {
    return !subscribedTopicNames.equals(other.subscribedTopicNames)
        || !Objects.equals(subscribedTopicRegex, other.subscribedTopicRegex);
  }
}
