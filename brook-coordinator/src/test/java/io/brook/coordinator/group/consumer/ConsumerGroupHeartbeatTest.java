package io.brook.coordinator.group.consumer;

import static io.brook.coordinator.group.consumer.ConsumerGroupTestContext.GROUP;
import static io.brook.coordinator.group.consumer.ConsumerGroupTestContext.join;
import static io.brook.coordinator.group.consumer.ConsumerGroupTestContext.partitions;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.assignor.TopicIdPartition;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ConsumerGroupHeartbeatTest {
  private final ConsumerGroupTestContext ctx = new ConsumerGroupTestContext().topic("orders", 6);

  @Test
  void firstMemberGetsEveryPartitionAtEpochOne() {
    // When
    ConsumerGroupHeartbeatResponseData response = ctx.heartbeat(join("a", "orders"));

    // Then
    assertThat(response.errorCode()).isZero();
    assertThat(response.memberId()).isEqualTo("a");
    assertThat(response.memberEpoch()).isEqualTo(1);
    assertThat(response.heartbeatIntervalMs()).isEqualTo(5000);
    assertThat(partitions(response)).hasSize(6);
    assertThat(ctx.group().stateName()).isEqualTo("Stable");
    ctx.assertReplayRebuildsSameState();
  }

  @Test
  void partitionsMoveToAJoiningMemberOnlyAfterTheirOwnerRevokedThem() {
    // Given: a owns all six
    Set<TopicIdPartition> aOwns = partitions(ctx.heartbeat(join("a", "orders")));

    // When: b joins
    ConsumerGroupHeartbeatResponseData b1 = ctx.heartbeat(join("b", "orders"));

    // Then: b is at the new epoch but gets nothing a still owns
    assertThat(b1.memberEpoch()).isEqualTo(2);
    assertThat(partitions(b1)).isEmpty();
    assertThat(ctx.group().stateName()).isEqualTo("Reconciling");
    ctx.assertSingleOwners();

    // When: a heartbeats, it is told to keep three (and so revoke three) at its old epoch
    ConsumerGroupHeartbeatResponseData a2 = ctx.heartbeat(ctx.beat("a", 1, aOwns));
    assertThat(a2.memberEpoch()).isEqualTo(1);
    Set<TopicIdPartition> aKeeps = partitions(a2);
    assertThat(aKeeps).hasSize(3);
    assertThat(ctx.member("a").assignment().state()).isEqualTo(MemberState.UNREVOKED_PARTITIONS);

    // Then: b still gets nothing while a has not revoked
    ConsumerGroupHeartbeatResponseData b2 = ctx.heartbeat(ctx.beat("b", 2, Set.of()));
    assertThat(b2.assignment()).isNull();
    ctx.assertSingleOwners();

    // When: a reports it revoked them
    ConsumerGroupHeartbeatResponseData a3 = ctx.heartbeat(ctx.beat("a", 1, aKeeps));
    assertThat(a3.memberEpoch()).isEqualTo(2);

    // Then: b's next heartbeat gets the three others
    ConsumerGroupHeartbeatResponseData b3 = ctx.heartbeat(ctx.beat("b", 2, Set.of()));
    Set<TopicIdPartition> bOwns = partitions(b3);
    assertThat(bOwns).hasSize(3).doesNotContainAnyElementsOf(aKeeps);
    ctx.assertSingleOwners();
    assertThat(ctx.group().stateName()).isEqualTo("Stable");

    // When: a third member joins, a and b each give up one
    ConsumerGroupHeartbeatResponseData c1 = ctx.heartbeat(join("c", "orders"));
    assertThat(c1.memberEpoch()).isEqualTo(3);
    assertThat(partitions(c1)).isEmpty();
    Set<TopicIdPartition> aKeeps2 = partitions(ctx.heartbeat(ctx.beat("a", 2, aKeeps)));
    Set<TopicIdPartition> bKeeps2 = partitions(ctx.heartbeat(ctx.beat("b", 2, bOwns)));
    assertThat(aKeeps2).hasSize(2).isSubsetOf(aKeeps);
    assertThat(bKeeps2).hasSize(2).isSubsetOf(bOwns);
    ctx.assertSingleOwners();
    ctx.heartbeat(ctx.beat("a", 2, aKeeps2));
    ConsumerGroupHeartbeatResponseData c2 = ctx.heartbeat(ctx.beat("c", 3, Set.of()));
    Set<TopicIdPartition> aRevoked = new TreeSet<>(aKeeps);
    aRevoked.removeAll(aKeeps2);

    // Then: c gets a's revoked partition now, b's only once b revoked it
    assertThat(partitions(c2)).isEqualTo(aRevoked);
    ctx.heartbeat(ctx.beat("b", 2, bKeeps2));
    Set<TopicIdPartition> cOwns = partitions(ctx.heartbeat(ctx.beat("c", 3, aRevoked)));
    assertThat(cOwns).hasSize(2);
    Set<TopicIdPartition> all = new HashSet<>(aKeeps2);
    all.addAll(bKeeps2);
    all.addAll(cOwns);
    assertThat(all).hasSize(6);
    assertThat(ctx.group().stateName()).isEqualTo("Stable");
    ctx.assertSingleOwners();
    ctx.assertReplayRebuildsSameState();
  }

  @Test
  void aSilentMemberIsRemovedAfterTheSessionTimeoutAndItsPartitionsMove() {
    // Given
    Set<TopicIdPartition> aOwns = partitions(ctx.heartbeat(join("a", "orders")));
    ctx.heartbeat(join("b", "orders"));
    aOwns = partitions(ctx.heartbeat(ctx.beat("a", 1, aOwns)));
    ctx.heartbeat(ctx.beat("a", 1, aOwns));
    Set<TopicIdPartition> bOwns = partitions(ctx.heartbeat(ctx.beat("b", 2, Set.of())));
    assertThat(bOwns).hasSize(3);

    // When: only b keeps heartbeating for longer than the session timeout
    for (int i = 0; i < 10; i++) {
      ctx.context.advance(5_000);
      ctx.heartbeat(ctx.beat("b", ctx.member("b").memberEpoch(), bOwns));
    }

    // Then
    assertThat(ctx.group().member("a")).isEmpty();
    assertThat(ctx.member("b").assignment().assigned()).hasSize(6);
    assertThat(ctx.group().stateName()).isEqualTo("Stable");
    assertThat(ctx.heartbeat(ctx.beat("a", 2, aOwns)).errorCode())
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    ctx.assertReplayRebuildsSameState();
  }

  @Test
  void aLeavingMemberIsRemovedAtOnce() {
    // Given
    ctx.heartbeat(join("a", "orders"));
    ctx.heartbeat(join("b", "orders"));
    int epoch = ctx.group().groupEpoch();

    // When
    ConsumerGroupHeartbeatResponseData left =
        ctx.heartbeat(ctx.beat("b", 2, Set.of()).setMemberEpoch(-1));

    // Then
    assertThat(left.errorCode()).isZero();
    assertThat(left.memberEpoch()).isEqualTo(-1);
    assertThat(ctx.group().member("b")).isEmpty();
    assertThat(ctx.group().groupEpoch()).isEqualTo(epoch + 1);
    ConsumerGroupHeartbeatResponseData a =
        ctx.heartbeat(ctx.beat("a", 1, ctx.member("a").assignment().assigned()));
    assertThat(ctx.member("a").assignment().assigned()).hasSize(6);
    assertThat(a.memberEpoch()).isEqualTo(epoch + 1);
    ctx.assertReplayRebuildsSameState();
  }

  @Test
  void theLastMemberLeavingEmptiesTheGroupWhichCanThenBeDeleted() {
    ctx.heartbeat(join("a", "orders"));
    ctx.heartbeat(ctx.beat("a", 1, Set.of()).setMemberEpoch(-1));

    assertThat(ctx.group().stateName()).isEqualTo("Empty");
    assertThat(ctx.shard.listings().delete(GROUP).join()).isEqualTo(Errors.NONE);
    assertThat(ctx.consumer().group(GROUP)).isEmpty();
    ctx.assertReplayRebuildsSameState();
  }

  @Test
  void aStaticMemberThatRestartsWithinTheSessionTimeoutGetsItsPartitionsBackWithoutARebalance() {
    // Given
    Set<TopicIdPartition> aOwns =
        partitions(ctx.heartbeat(join("a", "orders").setInstanceId("pod-a")));
    ctx.heartbeat(join("b", "orders").setInstanceId("pod-b"));
    aOwns = partitions(ctx.heartbeat(ctx.beat("a", 1, aOwns).setInstanceId("pod-a")));
    ctx.heartbeat(ctx.beat("a", 1, aOwns).setInstanceId("pod-a"));
    ctx.heartbeat(ctx.beat("b", 2, Set.of()).setInstanceId("pod-b"));
    int epoch = ctx.group().groupEpoch();

    // When: a leaves as a static member, and b heartbeats meanwhile
    ConsumerGroupHeartbeatResponseData left =
        ctx.heartbeat(ctx.beat("a", 2, aOwns).setInstanceId("pod-a").setMemberEpoch(-2));
    assertThat(left.memberEpoch()).isEqualTo(-2);
    ctx.context.advance(10_000);
    ConsumerGroupHeartbeatResponseData b =
        ctx.heartbeat(
            ctx.beat("b", 2, ctx.member("b").assignment().assigned()).setInstanceId("pod-b"));
    assertThat(b.assignment()).isNull();

    // Then: a new process with the same instance id and a new member id gets the same partitions
    ConsumerGroupHeartbeatResponseData back =
        ctx.heartbeat(join("a2", "orders").setInstanceId("pod-a"));
    assertThat(back.errorCode()).isZero();
    assertThat(partitions(back)).isEqualTo(aOwns);
    assertThat(back.memberEpoch()).isEqualTo(epoch);
    assertThat(ctx.group().groupEpoch()).isEqualTo(epoch);
    assertThat(ctx.group().member("a")).isEmpty();
    ctx.assertSingleOwners();
    ctx.assertReplayRebuildsSameState();
  }

  @Test
  void aStaticMemberThatDoesNotComeBackIsRemovedAfterTheSessionTimeout() {
    ctx.heartbeat(join("a", "orders").setInstanceId("pod-a"));
    ctx.heartbeat(ctx.beat("a", 1, Set.of()).setInstanceId("pod-a").setMemberEpoch(-2));

    ctx.context.advance(45_000);

    assertThat(ctx.group().member("a")).isEmpty();
    assertThat(ctx.group().stateName()).isEqualTo("Empty");
  }

  @Test
  void aSecondProcessWithAnInstanceIdInUseIsRefused() {
    ctx.heartbeat(join("a", "orders").setInstanceId("pod-a"));

    ConsumerGroupHeartbeatResponseData response =
        ctx.heartbeat(join("a2", "orders").setInstanceId("pod-a"));

    assertThat(response.errorCode()).isEqualTo(Errors.UNRELEASED_INSTANCE_ID.code());
    assertThat(ctx.group().size()).isEqualTo(1);
  }

  @Test
  void aMemberThatDoesNotRevokeWithinTheRebalanceTimeoutIsFenced() {
    // Given: a must give up three partitions to b
    Set<TopicIdPartition> aOwns =
        partitions(ctx.heartbeat(join("a", "orders").setRebalanceTimeoutMs(20_000)));
    ctx.heartbeat(join("b", "orders"));
    ctx.heartbeat(ctx.beat("a", 1, aOwns));

    // When: a keeps heartbeating but never reports the revocation
    for (int i = 0; i < 5; i++) {
      ctx.context.advance(5_000);
      if (ctx.group().member("a").isPresent()) {
        ctx.heartbeat(ctx.beat("a", 1, null));
      }
      ctx.heartbeat(
          ctx.beat("b", ctx.member("b").memberEpoch(), ctx.member("b").assignment().assigned()));
    }

    // Then
    assertThat(ctx.group().member("a")).isEmpty();
    assertThat(ctx.member("b").assignment().assigned()).hasSize(6);
  }

  @Test
  void partitionsAddedToASubscribedTopicAreAssigned() {
    ctx.heartbeat(join("a", "orders"));

    ctx.topic("orders", 8);
    ConsumerGroupHeartbeatResponseData response =
        ctx.heartbeat(ctx.beat("a", 1, ctx.member("a").assignment().assigned()));

    assertThat(response.memberEpoch()).isEqualTo(2);
    assertThat(partitions(response)).hasSize(8);
    ctx.assertReplayRebuildsSameState();
  }

  @Test
  void aRegexSubscriptionFollowsTopicsAsTheyAreCreated() {
    ConsumerGroupHeartbeatResponseData first =
        ctx.heartbeat(join("a").setSubscribedTopicNames(null).setSubscribedTopicRegex("ord.*"));
    assertThat(partitions(first)).hasSize(6);

    ctx.topic("ordinals", 2).topic("payments", 3);
    ConsumerGroupHeartbeatResponseData next =
        ctx.heartbeat(ctx.beat("a", first.memberEpoch(), partitions(first)));

    assertThat(partitions(next)).hasSize(8);
    assertThat(ctx.group().isSubscribedTo("ordinals")).isTrue();
    assertThat(ctx.group().isSubscribedTo("payments")).isFalse();
  }

  @Test
  void aResponseLostAfterAnEpochBumpIsForgivenWithThePreviousEpoch() {
    Set<TopicIdPartition> owns = partitions(ctx.heartbeat(join("a", "orders")));

    // The member retries its join (response lost): epoch 0 is its previous epoch and it owns
    // nothing.
    ConsumerGroupHeartbeatResponseData again = ctx.heartbeat(join("a", "orders"));

    assertThat(again.errorCode()).isZero();
    assertThat(partitions(again)).isEqualTo(owns);
  }

  @Test
  void badEpochsAndUnknownMembersAreFenced() {
    ctx.heartbeat(join("a", "orders"));

    assertThat(ctx.heartbeat(ctx.beat("a", 7, Set.of())).errorCode())
        .isEqualTo(Errors.FENCED_MEMBER_EPOCH.code());
    assertThat(ctx.heartbeat(ctx.beat("nobody", 1, Set.of())).errorCode())
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    assertThat(ctx.heartbeat(ctx.beat("a", 1, Set.of()).setGroupId("other")).errorCode())
        .isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
  }

  @Test
  void malformedRequestsAreRefusedAndChangeNothing() {
    assertThat(ctx.heartbeat(join("a", "orders").setGroupId("")).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(ctx.heartbeat(join("a", "orders").setRebalanceTimeoutMs(-1)).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(ctx.heartbeat(join("a", "orders").setTopicPartitions(null)).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(ctx.heartbeat(join("a").setSubscribedTopicNames(null)).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(ctx.heartbeat(join("", "orders")).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(ctx.heartbeat(join("a", "orders").setMemberEpoch(-3)).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(ctx.heartbeat(join("a", "orders").setServerAssignor("sticky")).errorCode())
        .isEqualTo(Errors.UNSUPPORTED_ASSIGNOR.code());
    assertThat(ctx.heartbeat(join("a").setSubscribedTopicRegex("(unclosed")).errorCode())
        .isEqualTo(Errors.INVALID_REGULAR_EXPRESSION.code());
    assertThat(ctx.context.records()).isEmpty();
  }

  @Test
  void offsetCommitsNeedTheCurrentMemberEpoch() {
    ctx.heartbeat(join("a", "orders"));
    ConsumerGroup group = ctx.group();

    group.validateOffsetCommit("a", null, 1, (short) 9);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> group.validateOffsetCommit("a", null, 0, (short) 9))
        .isInstanceOf(org.apache.kafka.common.errors.StaleMemberEpochException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> group.validateOffsetCommit("x", null, 1, (short) 9))
        .isInstanceOf(org.apache.kafka.common.errors.UnknownMemberIdException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(group::validateDeleteGroup)
        .isInstanceOf(org.apache.kafka.common.errors.GroupNotEmptyException.class);
  }

  @Test
  void describeShowsMembersAssignmentsAndTargets() {
    ctx.heartbeat(join("a", "orders").setServerAssignor("range"));

    var described = ctx.consumer().describe(GROUP);

    assertThat(described.errorCode()).isZero();
    assertThat(described.groupState()).isEqualTo("Stable");
    assertThat(described.assignorName()).isEqualTo("range");
    assertThat(described.members()).hasSize(1);
    assertThat(described.members().get(0).assignment().topicPartitions().get(0).topicName())
        .isEqualTo("orders");
    assertThat(described.members().get(0).targetAssignment().topicPartitions().get(0).partitions())
        .hasSize(6);
    assertThat(ctx.consumer().describe("missing").errorCode())
        .isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
  }
}
