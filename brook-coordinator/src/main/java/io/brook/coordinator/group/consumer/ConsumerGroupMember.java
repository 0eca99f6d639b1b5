package io.brook.coordinator.group.consumer;

import java.util.Objects;

/** One member of a consumer group: what it told us and what it owns. Immutable. */
public record ConsumerGroupMember(
    String memberId, MemberSubscription subscription, MemberAssignment assignment) {
  public ConsumerGroupMember {
    Objects.requireNonNull(memberId, "memberId");
    Objects.requireNonNull(subscription, "subscription");
    Objects.requireNonNull(assignment, "assignment");
  }

  public static ConsumerGroupMember joining(String memberId) {
    return new ConsumerGroupMember(memberId, MemberSubscription.EMPTY, MemberAssignment.NEW);
  }

  public ConsumerGroupMember withSubscription(MemberSubscription newSubscription) {
    return new ConsumerGroupMember(memberId, newSubscription, assignment);
  }

  public ConsumerGroupMember withAssignment(MemberAssignment newAssignment) {
    return new ConsumerGroupMember(memberId, subscription, newAssignment);
  }

  public int memberEpoch() {
    return assignment.memberEpoch();
  }

  public String instanceId() {
    return subscription.instanceId();
  }
}
