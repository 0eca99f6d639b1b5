package io.brook.coordinator.group.consumer;

import static io.brook.coordinator.group.consumer.ConsumerGroupTestContext.GROUP;
import static io.brook.coordinator.group.consumer.ConsumerGroupTestContext.join;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.testing.FakeShardContext;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Members' lives beyond single heartbeats: dead connections, loading, size limits. */
class ConsumerGroupLifecycleTest {
  @Test
  void aDynamicMemberWhoseConnectionClosedIsRemovedAfterAHeartbeatIntervalAndTheGrace() {
    // Given
    ConsumerGroupTestContext ctx = new ConsumerGroupTestContext().topic("orders", 4);
    ctx.heartbeat(join("a", "orders"));
    ctx.heartbeat(join("b", "orders"));

    // When: a's connection closes (its process died)
    ctx.shard.onConnectionClosed("conn-a");
    ctx.context.advance(
        ctx.config.consumerHeartbeatIntervalMs() + ctx.config.deadConnectionGraceMs() - 1);
    assertThat(ctx.group().member("a")).isPresent();
    ctx.context.advance(1);

    // Then
    assertThat(ctx.group().member("a")).isEmpty();
    assertThat(ctx.group().member("b")).isPresent();
  }

  @Test
  void aMemberThatReconnectsInTimeKeepsItsPlace() {
    ConsumerGroupTestContext ctx = new ConsumerGroupTestContext().topic("orders", 4);
    ctx.heartbeat(join("a", "orders"));

    ctx.shard.onConnectionClosed("conn-a");
    ctx.context.advance(ctx.config.consumerHeartbeatIntervalMs());
    ctx.heartbeat(ctx.beat("a", 1, ctx.member("a").assignment().assigned()));
    ctx.context.advance(ctx.config.consumerSessionTimeoutMs() - 1);

    assertThat(ctx.group().member("a")).isPresent();
  }

  @Test
  void aStaticMemberKeepsTheFullSessionTimeoutWhenItsConnectionCloses() {
    ConsumerGroupTestContext ctx = new ConsumerGroupTestContext().topic("orders", 4);
    ctx.heartbeat(join("a", "orders").setInstanceId("pod-a"));

    ctx.shard.onConnectionClosed("conn-a");
    ctx.context.advance(ctx.config.consumerSessionTimeoutMs() - 1);
    assertThat(ctx.group().member("a")).isPresent();
    ctx.context.advance(1);

    assertThat(ctx.group().member("a")).isEmpty();
  }

  @Test
  void membersLoadedAfterAFailoverGetSessionTimers() {
    // Given: a group written by one shard
    ConsumerGroupTestContext ctx = new ConsumerGroupTestContext().topic("orders", 4);
    ctx.heartbeat(join("a", "orders"));

    // When: another shard loads it and the member never heartbeats to it
    FakeShardContext next = new FakeShardContext(0, ctx.context.nowMs());
    next.setImage(ctx.context.image());
    GroupCoordinatorShard loaded = new GroupCoordinatorShard(next, ctx.config);
    next.attach(loaded);
    ctx.context.replayInto(loaded);
    assertThat(loaded.consumer().group(GROUP).orElseThrow().member("a")).isPresent();
    next.advance(ctx.config.consumerSessionTimeoutMs());

    // Then
    assertThat(loaded.consumer().group(GROUP).orElseThrow().member("a")).isEmpty();
  }

  @Test
  void aFullGroupRefusesNewMembersButServesItsOwn() {
    GroupConfig d = GroupConfig.defaults();
    GroupConfig small =
        new GroupConfig(
            d.offsetsTopicNumPartitions(),
            d.offsetsTopicReplicationFactor(),
            d.offsetsTopicSegmentBytes(),
            d.offsetsLoadBufferSize(),
            d.offsetsRetentionMs(),
            d.offsetsRetentionCheckIntervalMs(),
            d.offsetsCommitTimeoutMs(),
            d.offsetMetadataMaxBytes(),
            d.coordinatorThreads(),
            d.rebalanceProtocols(),
            d.groupInitialRebalanceDelayMs(),
            d.groupMinSessionTimeoutMs(),
            d.groupMaxSessionTimeoutMs(),
            d.groupMaxSize(),
            d.consumerSessionTimeoutMs(),
            d.consumerMinSessionTimeoutMs(),
            d.consumerMaxSessionTimeoutMs(),
            d.consumerHeartbeatIntervalMs(),
            1,
            d.consumerAssignors(),
            d.deadConnectionGraceMs(),
            d.share());
    ConsumerGroupTestContext ctx = new ConsumerGroupTestContext(small).topic("orders", 4);
    ctx.heartbeat(join("a", "orders"));

    assertThat(ctx.heartbeat(join("b", "orders")).errorCode())
        .isEqualTo(Errors.GROUP_MAX_SIZE_REACHED.code());
    assertThat(ctx.heartbeat(ctx.beat("a", 1, Set.of())).errorCode()).isZero();
  }

  @Test
  void aMemberMayChangeItsSubscription() {
    ConsumerGroupTestContext ctx =
        new ConsumerGroupTestContext().topic("orders", 4).topic("refunds", 2);
    ctx.heartbeat(join("a", "orders"));

    var response =
        ctx.heartbeat(
            ctx.beat("a", 1, ctx.member("a").assignment().assigned())
                .setSubscribedTopicNames(java.util.List.of("refunds")));

    // The orders partitions must go first; refunds come at the next heartbeat.
    assertThat(ConsumerGroupTestContext.partitions(response)).isEmpty();
    assertThat(response.assignment()).isNotNull();
    var next = ctx.heartbeat(ctx.beat("a", 1, Set.of()));
    assertThat(ConsumerGroupTestContext.partitions(next))
        .containsExactlyInAnyOrder(ctx.tp("refunds", 0), ctx.tp("refunds", 1));
    assertThat(ctx.group().isSubscribedTo("orders")).isFalse();
  }

  @Test
  void aClassicGroupWithMembersKeepsItsIdAndDescribeSaysItIsNotAConsumerGroup() {
    // Given: a classic member joining the group
    ConsumerGroupTestContext ctx = new ConsumerGroupTestContext().topic("orders", 4);
    var classicJoin =
        ctx.shard
            .classic()
            .join(
                new io.brook.coordinator.group.classic.ClassicRequests.Join(
                    GROUP,
                    "",
                    null,
                    "consumer",
                    java.util.List.of(
                        new io.brook.coordinator.group.classic.ClassicMember.Protocol(
                            "range", new byte[0])),
                    10_000,
                    30_000,
                    "classic-client",
                    "/127.0.0.1",
                    false,
                    "conn-classic",
                    null));
    assertThat(classicJoin).isNotCompletedExceptionally();
    assertThat(ctx.shard.groups().get(GROUP))
        .hasValueSatisfying(g -> assertThat(g.isEmpty()).isFalse());

    // When / Then
    assertThat(ctx.heartbeat(join("a", "orders")).errorCode())
        .isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    var described = ctx.consumer().describe(GROUP);
    assertThat(described.errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    assertThat(described.errorMessage()).contains("not a consumer group");
    assertThat(ctx.consumer().group(GROUP)).isEmpty();
  }
}
