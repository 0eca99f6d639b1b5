package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RecordJson;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * AlterPartitionReassignments and ListPartitionReassignments on the controller, record by record.
 */
class ReassignmentTest {
  private static ControllerTestContext cluster(int... brokers) {
    return ControllerTestContext.builder().withBrokers(brokers).build();
  }

  private static void topic(ControllerTestContext ctx, String name, List<Integer> replicas) {
    TopicResult result =
        ctx.replay(
            ctx.controller.createTopic(
                name, -1, (short) -1, Map.of(0, replicas), Map.of(), false, ConfigValidator.NONE));
    assertThat(result.error().isSuccess()).as("%s", result.error()).isTrue();
  }

  private static ApiError alter(ControllerTestContext ctx, PartitionReassignment request) {
    return alter(ctx, request, true);
  }

  private static ApiError alter(
      ControllerTestContext ctx, PartitionReassignment request, boolean allowRfChange) {
    List<ApiError> errors =
        ctx.replay(ctx.controller.alterPartitionReassignments(List.of(request), allowRfChange));
    assertThat(errors).hasSize(1);
    return errors.get(0);
  }

  /** What AlterPartition does: a leader reports a new ISR. */
  private static void isrBecomes(ControllerTestContext ctx, List<Integer> isr) {
    PartitionImage p = ctx.partition("t", 0);
    ReassignmentControl.isrChange(
            ctx.topic("t").id(), 0, p, isr, p.leader(), id -> !ctx.image.brokers().get(id).fenced())
        .ifPresent(change -> ctx.image = ctx.image.apply(List.of(change), ctx.image.offset() + 1));
  }

  @Test
  void addingAReplicaWidensTheReplicasAndWaitsForItToBeInSync() {
    // Given
    ControllerTestContext ctx = cluster(1, 2, 3, 4);
    topic(ctx, "t", List.of(1, 2, 3));

    // When 1 is to be replaced by 4
    ApiError error = alter(ctx, PartitionReassignment.to("t", 0, List.of(4, 2, 3)));

    // Then the replicas are target first, then the ones leaving; ISR and leader stay
    assertThat(error).isEqualTo(ApiError.NONE);
    assertThat(ctx.partition("t", 0))
        .isEqualTo(
            new PartitionImage(
                List.of(4, 2, 3, 1), List.of(1, 2, 3), 1, 0, 1, List.of(4), List.of(1)));
    assertThat(ctx.controller.listPartitionReassignments(Optional.empty()))
        .containsOnlyKeys("t")
        .extractingByKey("t")
        .satisfies(byPartition -> assertThat(byPartition).containsOnlyKeys(0));
  }

  @Test
  void anIsrChangeThatBringsTheNewReplicaInSyncCompletesTheMoveAndMovesTheLeader() {
    // Given a move of 1 to 4 in progress, 1 leading
    ControllerTestContext ctx = cluster(1, 2, 3, 4);
    topic(ctx, "t", List.of(1, 2, 3));
    alter(ctx, PartitionReassignment.to("t", 0, List.of(4, 2, 3)));

    // When 4 joins the ISR
    isrBecomes(ctx, List.of(1, 2, 3, 4));

    // Then the move completes in that same change: 1 leaves, and the first in-sync target leads
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.replicas()).containsExactly(4, 2, 3);
    assertThat(p.isr()).containsExactly(2, 3, 4);
    assertThat(p.leader()).isEqualTo(4);
    assertThat(p.leaderEpoch()).isEqualTo(1);
    assertThat(p.isReassigning()).isFalse();
    assertThat(ctx.controller.listPartitionReassignments(Optional.empty())).isEmpty();
  }

  @Test
  void anIsrChangeWithoutTheNewReplicaLeavesTheMoveInProgress() {
    // Given
    ControllerTestContext ctx = cluster(1, 2, 3, 4);
    topic(ctx, "t", List.of(1, 2, 3));
    alter(ctx, PartitionReassignment.to("t", 0, List.of(4, 2, 3)));

    // When the ISR shrinks (2 fenced)
    ctx.replay(ctx.controller.fenceBroker(2));

    // Then
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.isr()).containsExactly(1, 3);
    assertThat(p.addingReplicas()).containsExactly(4);
    assertThat(p.removingReplicas()).containsExactly(1);
  }

  @Test
  void fencingTheLeaderOfAMovingPartitionPrefersATargetReplica() {
    // Given 1 and 2 are leaving for 4 and 3 (replicas [4, 3, 1, 2]); 1 leads
    ControllerTestContext ctx = cluster(1, 2, 3, 4);
    topic(ctx, "t", List.of(1, 2, 3));
    alter(ctx, PartitionReassignment.to("t", 0, List.of(4, 3)));

    // When 1 is fenced
    ctx.replay(ctx.controller.fenceBroker(1));

    // Then 3, first in replica order among the in-sync, leads; the move goes on
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.replicas()).containsExactly(4, 3, 1, 2);
    assertThat(p.leader()).isEqualTo(3);
    assertThat(p.isReassigning()).isTrue();
  }

  @Test
  void aReorderCompletesAtOnceAndKeepsTheLeader() {
    // Given
    ControllerTestContext ctx = cluster(1, 2, 3);
    topic(ctx, "t", List.of(1, 2, 3));

    // When
    ApiError error = alter(ctx, PartitionReassignment.to("t", 0, List.of(3, 2, 1)));

    // Then
    assertThat(error).isEqualTo(ApiError.NONE);
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(3, 2, 1), List.of(1, 2, 3), 1, 0, 1));
  }

  @Test
  void aShrinkOfInSyncReplicasCompletesAtOnceAndElectsFromTheTarget() {
    // Given 1 leads
    ControllerTestContext ctx = cluster(1, 2, 3);
    topic(ctx, "t", List.of(1, 2, 3));

    // When 1 is dropped
    ApiError error = alter(ctx, PartitionReassignment.to("t", 0, List.of(3, 2)));

    // Then one record: replicas = target, ISR without 1, 3 leads in a new epoch
    assertThat(error).isEqualTo(ApiError.NONE);
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(3, 2), List.of(2, 3), 3, 1, 1));
  }

  @Test
  void aShrinkCompletesEvenIfAKeptReplicaIsOutOfSync() {
    // Given 3 fenced, so out of the ISR
    ControllerTestContext ctx = cluster(1, 2, 3);
    topic(ctx, "t", List.of(1, 2, 3));
    ctx.replay(ctx.controller.fenceBroker(3));

    // When 2 is dropped, 3 kept
    alter(ctx, PartitionReassignment.to("t", 0, List.of(1, 3)));

    // Then (KRaft's rule: only added replicas must be in sync)
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.replicas()).containsExactly(1, 3);
    assertThat(p.isr()).containsExactly(1);
    assertThat(p.isReassigning()).isFalse();
  }

  @Test
  void theSameReplicasAgainChangeNothing() {
    // Given
    ControllerTestContext ctx = cluster(1, 2, 3);
    topic(ctx, "t", List.of(1, 2, 3));

    // When
    var result =
        ctx.controller.alterPartitionReassignments(
            List.of(PartitionReassignment.to("t", 0, List.of(1, 2, 3))), true);

    // Then
    assertThat(result.response()).containsExactly(ApiError.NONE);
    assertThat(result.records()).isEmpty();
  }

  @Test
  void cancellingRestoresTheOriginalReplicas() {
    // Given 4 being added
    ControllerTestContext ctx = cluster(1, 2, 3, 4);
    topic(ctx, "t", List.of(1, 2, 3));
    alter(ctx, PartitionReassignment.to("t", 0, List.of(1, 2, 3, 4)));
    assertThat(ctx.partition("t", 0).addingReplicas()).containsExactly(4);

    // When
    ApiError error = alter(ctx, PartitionReassignment.cancel("t", 0));

    // Then (dropping 4 bumps the leader epoch, so 4 would be fenced if it still fetched)
    assertThat(error).isEqualTo(ApiError.NONE);
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(1, 2, 3), List.of(1, 2, 3), 1, 1, 2));
    assertThat(alter(ctx, PartitionReassignment.cancel("t", 0)).error())
        .isEqualTo(Errors.NO_REASSIGNMENT_IN_PROGRESS);
  }

  @Test
  void cancellingAfterAnAddedReplicaLedElectsAnOriginalOne() {
    // Given [1] moving to [2, 3]; 2 in sync and leading, 1 out of sync, 3 still catching up
    ControllerTestContext ctx = cluster(1, 2, 3);
    topic(ctx, "t", List.of(1));
    alter(ctx, PartitionReassignment.to("t", 0, List.of(2, 3)));
    isrBecomes(ctx, List.of(1, 2));
    isrBecomes(ctx, List.of(2));
    assertThat(ctx.partition("t", 0).leader()).isEqualTo(2);

    // When
    ApiError error = alter(ctx, PartitionReassignment.cancel("t", 0));

    // Then no original replica is in sync: reverting would need an unclean election
    assertThat(error.error()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(error.message()).contains("unclean leader election");
  }

  @Test
  void aNewTargetReplacesTheOneInProgress() {
    // Given 3 being replaced by 4
    ControllerTestContext ctx = cluster(1, 2, 3, 4, 5);
    topic(ctx, "t", List.of(1, 2, 3));
    alter(ctx, PartitionReassignment.to("t", 0, List.of(1, 2, 4)));

    // When the target becomes [1, 2, 5]
    alter(ctx, PartitionReassignment.to("t", 0, List.of(1, 2, 5)));

    // Then 4, which was being added, is now being removed with 3
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.replicas()).containsExactly(1, 2, 5, 4, 3);
    assertThat(p.addingReplicas()).containsExactly(5);
    assertThat(p.removingReplicas()).containsExactly(4, 3);
  }

  @Test
  void invalidRequestsAreRefusedPerPartitionWithoutRecords() {
    // Given
    ControllerTestContext ctx = cluster(1, 2, 3);
    topic(ctx, "t", List.of(1, 2, 3));

    // When
    var result =
        ctx.controller.alterPartitionReassignments(
            List.of(
                PartitionReassignment.to("nope", 0, List.of(1)),
                PartitionReassignment.to("t", 7, List.of(1)),
                PartitionReassignment.to("t", 0, List.of(1, 9)),
                PartitionReassignment.to("t", 0, List.of(1, 1)),
                PartitionReassignment.to("t", 0, List.of()),
                PartitionReassignment.cancel("t", 0),
                PartitionReassignment.to("t", 0, List.of(2, 1, 3))),
            true);

    // Then each fails alone; the valid last one goes through
    assertThat(result.response().stream().map(ApiError::error))
        .containsExactly(
            Errors.UNKNOWN_TOPIC_OR_PARTITION,
            Errors.UNKNOWN_TOPIC_OR_PARTITION,
            Errors.INVALID_REPLICA_ASSIGNMENT,
            Errors.INVALID_REPLICA_ASSIGNMENT,
            Errors.INVALID_REPLICA_ASSIGNMENT,
            Errors.NO_REASSIGNMENT_IN_PROGRESS,
            Errors.NONE);
    assertThat(result.response().get(0).message()).isEqualTo("Unable to find a topic named nope.");
    assertThat(result.response().get(2).message()).contains("broker 9", "no such broker");
    assertThat(result.records()).hasSize(1);
  }

  @Test
  void aReplicationFactorChangeCanBeForbidden() {
    // Given
    ControllerTestContext ctx = cluster(1, 2, 3, 4);
    topic(ctx, "t", List.of(1, 2, 3));

    // When
    ApiError shrink = alter(ctx, PartitionReassignment.to("t", 0, List.of(1, 2)), false);
    ApiError move = alter(ctx, PartitionReassignment.to("t", 0, List.of(4, 2, 3)), false);
    // the replica count of a moving partition is its original one (3), not the union (4)
    ApiError moveAgain = alter(ctx, PartitionReassignment.to("t", 0, List.of(1, 2, 4)), false);

    // Then
    assertThat(shrink.error()).isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
    assertThat(shrink.message()).isEqualTo("The replication factor is changed from 3 to 2");
    assertThat(move).isEqualTo(ApiError.NONE);
    assertThat(moveAgain).isEqualTo(ApiError.NONE);
  }

  @Test
  void aLongRequestIsSplitAtTheRecordLimit() {
    // Given at most two records per operation
    ControllerTestContext ctx =
        ControllerTestContext.builder()
            .withConfig(new ControllerConfig(1, (short) 1, 1000, 2))
            .withBrokers(1, 2)
            .build();
    for (String name : List.of("a", "b", "c")) {
      topic(ctx, name, List.of(1));
    }

    // When
    var result =
        ctx.controller.alterPartitionReassignments(
            List.of(
                PartitionReassignment.to("a", 0, List.of(1, 2)),
                PartitionReassignment.to("b", 0, List.of(1, 2)),
                PartitionReassignment.to("c", 0, List.of(1, 2))),
            true);

    // Then the caller gets two answers and submits the third again
    assertThat(result.response()).hasSize(2);
    assertThat(result.records()).hasSize(2);
  }

  @Test
  void thePartitionNamedTwiceSeesItsFirstChange() {
    // Given
    ControllerTestContext ctx = cluster(1, 2, 3);
    topic(ctx, "t", List.of(1, 2));

    // When a move starts and is cancelled in one request
    var result =
        ctx.controller.alterPartitionReassignments(
            List.of(
                PartitionReassignment.to("t", 0, List.of(1, 2, 3)),
                PartitionReassignment.cancel("t", 0)),
            true);
    ctx.replay(result);

    // Then
    assertThat(result.response()).containsExactly(ApiError.NONE, ApiError.NONE);
    assertThat(ctx.partition("t", 0).replicas()).containsExactly(1, 2);
    assertThat(ctx.partition("t", 0).isReassigning()).isFalse();
  }

  @Test
  void listingNamedPartitionsLeavesOutUnknownAndSettledOnes() {
    // Given one moving partition of two
    ControllerTestContext ctx = cluster(1, 2, 3);
    ctx.replay(
        ctx.controller.createTopic(
            "t",
            -1,
            (short) -1,
            Map.of(0, List.of(1), 1, List.of(2)),
            Map.of(),
            false,
            ConfigValidator.NONE));
    alter(ctx, PartitionReassignment.to("t", 1, List.of(2, 3)));

    // When
    Map<String, Map<Integer, PartitionImage>> listed =
        ctx.controller.listPartitionReassignments(
            Optional.of(Map.of("t", List.of(0, 1, 5), "nope", List.of(0))));

    // Then
    assertThat(listed).containsOnlyKeys("t");
    assertThat(listed.get("t")).containsOnlyKeys(1);
    PartitionImage p = listed.get("t").get(1);
    assertThat(p.replicas()).containsExactly(2, 3);
    assertThat(p.addingReplicas()).containsExactly(3);
    assertThat(p.removingReplicas()).isEmpty();
  }

  @Test
  void aMovingPartitionSurvivesASnapshotAndItsJson() throws Exception {
    // Given
    ControllerTestContext ctx = cluster(1, 2, 3, 4);
    topic(ctx, "t", List.of(1, 2, 3));
    alter(ctx, PartitionReassignment.to("t", 0, List.of(4, 2, 3)));

    // When the image is written as records, as JSON, read back and replayed
    byte[] json = RecordJson.MAPPER.writeValueAsBytes(RecordJson.toJson(ctx.image.toRecords()));
    List<MetadataRecord> read = RecordJson.listFromJson(RecordJson.MAPPER.readTree(json));
    MetadataImage rebuilt = MetadataImage.EMPTY.apply(read, ctx.image.offset());

    // Then
    assertThat(rebuilt).isEqualTo(ctx.image);
    assertThat(rebuilt.partition("t", 0).orElseThrow().addingReplicas()).containsExactly(4);
  }
}
