package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.controller.state.IsrChangeRequest.IsrMember;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.PartitionImage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** AlterPartition on the controller: each check, and the state a success reports. */
class AlterPartitionTest {
  private static ControllerTestContext cluster(List<Integer> replicas, int... brokers) {
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(brokers).build();
    TopicResult result =
        ctx.replay(
            ctx.controller.createTopic(
                "t", -1, (short) -1, Map.of(0, replicas), Map.of(), false, ConfigValidator.NONE));
    assertThat(result.error().isSuccess()).as("%s", result.error()).isTrue();
    return ctx;
  }

  private static long epochOf(ControllerTestContext ctx, int brokerId) {
    return ctx.image.brokers().get(brokerId).epoch();
  }

  /** A request in the partition's current epochs, with every member's epoch given. */
  private static IsrChangeRequest request(ControllerTestContext ctx, List<Integer> isr) {
    PartitionImage p = ctx.partition("t", 0);
    return request(ctx, isr, p.leaderEpoch(), p.partitionEpoch());
  }

  private static IsrChangeRequest request(
      ControllerTestContext ctx, List<Integer> isr, int leaderEpoch, int partitionEpoch) {
    List<IsrMember> members = isr.stream().map(id -> new IsrMember(id, epochOf(ctx, id))).toList();
    return new IsrChangeRequest(
        ctx.topic("t").id(), 0, leaderEpoch, partitionEpoch, members, IsrControl.RECOVERED);
  }

  /** Sends one partition's request from {@code brokerId} and replays its records. */
  private static IsrChangeResult send(
      ControllerTestContext ctx, int brokerId, IsrChangeRequest request) {
    List<IsrChangeResult> results =
        ctx.replay(
            ctx.controller.alterPartition(brokerId, epochOf(ctx, brokerId), List.of(request)));
    assertThat(results).hasSize(1);
    return results.get(0);
  }

  private static Errors error(ControllerTestContext ctx, int brokerId, IsrChangeRequest request) {
    return send(ctx, brokerId, request).error().error();
  }

  @Test
  void aShrinkBumpsThePartitionEpochButNotTheLeaderEpoch() {
    // Given
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);

    // When the leader drops 3
    IsrChangeResult result = send(ctx, 1, request(ctx, List.of(1, 2)));

    // Then
    assertThat(result.error()).isEqualTo(ApiError.NONE);
    PartitionImage expected = new PartitionImage(List.of(1, 2, 3), List.of(1, 2), 1, 0, 1);
    assertThat(result.partition()).contains(expected);
    assertThat(ctx.partition("t", 0)).isEqualTo(expected);
  }

  @Test
  void anExpandAddsTheCaughtUpReplicaInReplicaOrder() {
    // Given 3 dropped out
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);
    send(ctx, 1, request(ctx, List.of(1, 2)));

    // When it is back, listed first
    IsrChangeResult result = send(ctx, 1, request(ctx, List.of(3, 1, 2)));

    // Then
    assertThat(result.error()).isEqualTo(ApiError.NONE);
    assertThat(result.partition())
        .contains(new PartitionImage(List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 2));
  }

  @Test
  void theCurrentIsrAgainChangesNothing() {
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);

    ControllerResult<List<IsrChangeResult>> result =
        ctx.controller.alterPartition(1, epochOf(ctx, 1), List.of(request(ctx, List.of(1, 2, 3))));

    assertThat(result.records()).isEmpty();
    assertThat(result.response().get(0).partition()).contains(ctx.partition("t", 0));
  }

  @Test
  void aStaleOrUnregisteredBrokerFailsTheWholeRequest() {
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);
    IsrChangeRequest shrink = request(ctx, List.of(1, 2));

    assertThatThrownBy(() -> ctx.controller.alterPartition(1, epochOf(ctx, 1) - 1, List.of(shrink)))
        .isInstanceOfSatisfying(
            MetadataException.class,
            e -> assertThat(e.error().error()).isEqualTo(Errors.STALE_BROKER_EPOCH));
    assertThatThrownBy(() -> ctx.controller.alterPartition(9, 1, List.of(shrink)))
        .isInstanceOfSatisfying(
            MetadataException.class,
            e -> assertThat(e.error().error()).isEqualTo(Errors.STALE_BROKER_EPOCH));
  }

  @Test
  void unknownTopicsAndPartitions() {
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);
    IsrChangeRequest valid = request(ctx, List.of(1, 2));

    IsrChangeRequest noTopic =
        new IsrChangeRequest(Uuid.randomUuid(), 0, 0, 0, valid.newIsr(), IsrControl.RECOVERED);
    IsrChangeRequest noPartition =
        new IsrChangeRequest(valid.topicId(), 7, 0, 0, valid.newIsr(), IsrControl.RECOVERED);

    assertThat(error(ctx, 1, noTopic)).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
    assertThat(error(ctx, 1, noPartition)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
  }

  @Test
  void onlyTheLeaderMayAsk() {
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);

    assertThat(error(ctx, 2, request(ctx, List.of(1, 2)))).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(ctx.partition("t", 0).partitionEpoch()).isZero();
  }

  @Test
  void leaderEpochsOlderOrNewerThanTheControllers() {
    // Given 2 leads in leader epoch 1, after 1 was fenced
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);
    ctx.replay(ctx.controller.fenceBroker(1));
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.leader()).isEqualTo(2);
    assertThat(p.leaderEpoch()).isEqualTo(1);

    // Then an older epoch is fenced, a newer one means this controller is behind
    assertThat(error(ctx, 2, request(ctx, List.of(2, 3), 0, p.partitionEpoch())))
        .isEqualTo(Errors.FENCED_LEADER_EPOCH);
    assertThat(error(ctx, 2, request(ctx, List.of(2, 3), 2, p.partitionEpoch())))
        .isEqualTo(Errors.NOT_CONTROLLER);
    assertThat(error(ctx, 2, request(ctx, List.of(2, 3), 1, p.partitionEpoch() + 1)))
        .isEqualTo(Errors.NOT_CONTROLLER);
  }

  @Test
  void aStalePartitionEpochIsRefused() {
    // Given the ISR changed since the leader read partition epoch 0
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);
    send(ctx, 1, request(ctx, List.of(1, 2)));

    // When it asks for another ISR in epoch 0
    IsrChangeResult result = send(ctx, 1, request(ctx, List.of(1, 3), 0, 0));

    // Then
    assertThat(result.error().error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
    assertThat(result.partition()).isEmpty();
    assertThat(ctx.partition("t", 0).isr()).containsExactly(1, 2);
  }

  @Test
  void aRetryOfAnAppliedChangeGetsTheCurrentState() {
    // Given a shrink that was applied, but whose answer the leader missed
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);
    IsrChangeRequest shrink = request(ctx, List.of(1, 2));
    send(ctx, 1, shrink);

    // When it sends the same request again
    ControllerResult<List<IsrChangeResult>> retry =
        ctx.controller.alterPartition(1, epochOf(ctx, 1), List.of(shrink));

    // Then it succeeds with the current state and changes nothing
    assertThat(retry.records()).isEmpty();
    assertThat(retry.response().get(0).error()).isEqualTo(ApiError.NONE);
    assertThat(retry.response().get(0).partition())
        .contains(new PartitionImage(List.of(1, 2, 3), List.of(1, 2), 1, 0, 1));
  }

  @Test
  void theIsrMustHoldTheLeaderAndOnlyDistinctReplicas() {
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3, 4);

    assertThat(error(ctx, 1, request(ctx, List.of(2, 3)))).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(error(ctx, 1, request(ctx, List.of(1, 4)))).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(error(ctx, 1, request(ctx, List.of(1, 1)))).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(error(ctx, 1, request(ctx, List.of()))).isEqualTo(Errors.INVALID_REQUEST);
    IsrChangeRequest recovering = request(ctx, List.of(1, 2));
    recovering = new IsrChangeRequest(recovering.topicId(), 0, 0, 0, recovering.newIsr(), (byte) 1);
    assertThat(error(ctx, 1, recovering)).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(ctx.partition("t", 0).partitionEpoch()).isZero();
  }

  @Test
  void aFencedOrRestartedReplicaCannotJoin() {
    // Given 3 out of the ISR
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);
    send(ctx, 1, request(ctx, List.of(1, 2)));
    IsrChangeRequest expand = request(ctx, List.of(1, 2, 3));

    // When 3 is fenced
    ctx.replay(ctx.controller.fenceBroker(3));

    // Then it is ineligible
    assertThat(error(ctx, 1, expand)).isEqualTo(Errors.INELIGIBLE_REPLICA);

    // When it comes back in a new epoch, the leader's view of its old epoch is ineligible too
    ctx.register(3, Optional.empty());
    assertThat(error(ctx, 1, expand)).isEqualTo(Errors.INELIGIBLE_REPLICA);

    // And with its epoch unknown (-1), or the current one, it joins
    IsrChangeRequest unknown =
        new IsrChangeRequest(
            expand.topicId(),
            0,
            expand.leaderEpoch(),
            expand.partitionEpoch(),
            List.of(
                new IsrMember(1, epochOf(ctx, 1)),
                new IsrMember(2, epochOf(ctx, 2)),
                IsrMember.of(3)),
            IsrControl.RECOVERED);
    assertThat(error(ctx, 1, unknown)).isEqualTo(Errors.NONE);
    assertThat(ctx.partition("t", 0).isr()).containsExactly(1, 2, 3);
  }

  @Test
  void anExpandThatBringsTheAddedReplicaInSyncCompletesTheReassignment() {
    // Given 3 is being replaced by 4, 1 leading
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3, 4);
    ctx.replay(
        ctx.controller.alterPartitionReassignments(
            List.of(PartitionReassignment.to("t", 0, List.of(1, 2, 4))), true));
    assertThat(ctx.partition("t", 0).replicas()).containsExactly(1, 2, 4, 3);

    // When 4 has caught up
    IsrChangeResult result = send(ctx, 1, request(ctx, List.of(1, 2, 3, 4)));

    // Then the move completes: the replicas are the target; dropping 3 bumps the leader epoch
    PartitionImage expected = new PartitionImage(List.of(1, 2, 4), List.of(1, 2, 4), 1, 1, 2);
    assertThat(result.error()).isEqualTo(ApiError.NONE);
    assertThat(result.partition()).contains(expected);
    assertThat(ctx.partition("t", 0)).isEqualTo(expected);
  }

  @Test
  void anExpandThatCompletesAMoveAwayFromTheLeaderElectsAnother() {
    // Given the leader 1 is being replaced by 4
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3, 4);
    ctx.replay(
        ctx.controller.alterPartitionReassignments(
            List.of(PartitionReassignment.to("t", 0, List.of(4, 2, 3))), true));

    // When 4 has caught up
    IsrChangeResult result = send(ctx, 1, request(ctx, List.of(1, 2, 3, 4)));

    // Then the move completes and 1 is told that it no longer leads
    assertThat(result.error().error()).isEqualTo(Errors.NEW_LEADER_ELECTED);
    assertThat(result.partition()).isEmpty();
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(4, 2, 3), List.of(4, 2, 3), 4, 1, 2));
  }

  @Test
  void eachPartitionIsAnsweredOnItsOwn() {
    ControllerTestContext ctx = cluster(List.of(1, 2, 3), 1, 2, 3);
    IsrChangeRequest good = request(ctx, List.of(1, 2));
    IsrChangeRequest bad =
        new IsrChangeRequest(good.topicId(), 5, 0, 0, good.newIsr(), IsrControl.RECOVERED);

    ControllerResult<List<IsrChangeResult>> result =
        ctx.controller.alterPartition(1, epochOf(ctx, 1), List.of(bad, good));

    assertThat(result.records()).hasSize(1);
    assertThat(result.response())
        .extracting(r -> r.partitionId() + ":" + r.error().error())
        .containsExactly("5:UNKNOWN_TOPIC_OR_PARTITION", "0:NONE");
  }
}
