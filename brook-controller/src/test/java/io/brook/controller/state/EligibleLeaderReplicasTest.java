package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.controller.state.IsrChangeRequest.IsrMember;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.RecordJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Eligible leader replicas (KIP-966): topic "t" on replicas 1, 2, 3 with min ISR 2. Every record
 * the controller writes is kept, so each test can also check that the ELR survives JSON and replay
 * (what a restarted controller sees).
 */
class EligibleLeaderReplicasTest {
  private final List<MetadataRecord> written = new ArrayList<>();
  private final ControllerTestContext ctx = cluster(ControllerConfig.DEFAULT);

  private ControllerTestContext cluster(ControllerConfig config) {
    ControllerTestContext c =
        ControllerTestContext.builder()
            .withConfig(config.withMinInsyncReplicas(2))
            .withBrokers(1, 2, 3)
            .build();
    written.addAll(c.image.toRecords());
    c.replay(
        logged(
            c.controller.createTopic(
                "t",
                -1,
                (short) -1,
                Map.of(0, List.of(1, 2, 3)),
                Map.of(),
                false,
                ConfigValidator.NONE)));
    return c;
  }

  private <T> ControllerResult<T> logged(ControllerResult<T> result) {
    written.addAll(result.records());
    return result;
  }

  private <T> T run(ControllerResult<T> result) {
    return ctx.replay(logged(result));
  }

  private PartitionImage p() {
    return ctx.partition("t", 0);
  }

  private ApiError alterIsr(int... isr) {
    PartitionImage p = p();
    List<IsrMember> members = new ArrayList<>();
    for (int id : isr) {
      members.add(IsrMember.of(id));
    }
    IsrChangeRequest request =
        new IsrChangeRequest(
            ctx.topic("t").id(),
            0,
            p.leaderEpoch(),
            p.partitionEpoch(),
            members,
            IsrControl.RECOVERED);
    long epoch = ctx.image.brokers().get(p.leader()).epoch();
    return run(ctx.controller.alterPartition(p.leader(), epoch, List.of(request))).get(0).error();
  }

  /** 3, then 2, then 1 fenced: the ISR empties into the ELR. */
  private void fenceAllInTurn() {
    run(ctx.controller.fenceBroker(3));
    run(ctx.controller.fenceBroker(2));
    run(ctx.controller.fenceBroker(1));
  }

  /** A new process of {@code id} registers, saying it shut down cleanly or not. */
  private void reRegister(int id, boolean clean) {
    long previous = clean ? ctx.image.brokers().get(id).epoch() : -1L;
    run(
        ctx.controller.registerBrokerFenced(
            id,
            Uuid.randomUuid(),
            List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9092 + id, "PLAINTEXT")),
            Optional.empty(),
            previous));
  }

  @Test
  void aShrinkBelowMinIsrMovesTheDroppedMembersIntoTheElr() {
    // When the leader drops 3, the ISR stays at min ISR: 3 may miss later records, no ELR
    assertThat(alterIsr(1, 2)).isEqualTo(ApiError.NONE);
    assertThat(p().eligibleLeaderReplicas()).isEmpty();

    // When it drops 2 as well, nothing is committed any more without 2 coming back
    assertThat(alterIsr(1)).isEqualTo(ApiError.NONE);

    // Then 2 joins the ELR, 3 does not
    assertThat(p().isr()).containsExactly(1);
    assertThat(p().eligibleLeaderReplicas()).containsExactly(2);
  }

  @Test
  void theIsrBackAtMinIsrClearsTheElr() {
    // Given
    alterIsr(1);
    assertThat(p().eligibleLeaderReplicas()).containsExactly(2, 3);

    // When 3 catches up
    alterIsr(1, 3);

    // Then
    assertThat(p().isr()).containsExactly(1, 3);
    assertThat(p().eligibleLeaderReplicas()).isEmpty();
    assertThat(p().lastKnownElr()).isEmpty();
  }

  @Test
  void fencingTheLastIsrMemberEmptiesTheIsrIntoTheElrAndRemembersTheLeader() {
    // When
    fenceAllInTurn();

    // Then
    PartitionImage p = p();
    assertThat(p.isr()).isEmpty();
    assertThat(p.leader()).isEqualTo(PartitionImage.NO_LEADER);
    assertThat(p.eligibleLeaderReplicas()).containsExactly(1, 2);
    assertThat(p.lastKnownElr()).containsExactly(1);
  }

  @Test
  void anElrMemberLeadsWhenTheIsrIsEmptyAndItReturns() {
    // Given
    fenceAllInTurn();

    // When 2 (not the last leader, but in the ELR) is unfenced
    run(ctx.controller.unfenceBroker(2));

    // Then it leads, alone in the ISR, and 1 stays eligible
    PartitionImage p = p();
    assertThat(p.leader()).isEqualTo(2);
    assertThat(p.isr()).containsExactly(2);
    assertThat(p.eligibleLeaderReplicas()).containsExactly(1);
    assertThat(p.lastKnownElr()).isEmpty();
  }

  @Test
  void aBrokerThatShutDownUncleanlyLeavesTheElrAndOneThatShutDownCleanlyStays() {
    // Given
    fenceAllInTurn();

    // When 2 comes back after a crash, 1 after a clean shutdown
    reRegister(2, false);
    reRegister(1, true);

    // Then
    assertThat(p().eligibleLeaderReplicas()).containsExactly(1);
  }

  @Test
  void aReplicaOutsideIsrAndElrIsNotElectedWhileUncleanElectionIsOff() {
    // Given
    fenceAllInTurn();

    // When 3, which left the ISR while it was still at min ISR, comes back
    run(ctx.controller.unfenceBroker(3));

    // Then it does not lead: it may lack committed records
    assertThat(p().leader()).isEqualTo(PartitionImage.NO_LEADER);
    assertThat(p().eligibleLeaderReplicas()).containsExactly(1, 2);
  }

  @Test
  void uncleanElectionWaitsForAnEmptyElr() {
    // Given unclean election on for the topic, and every ISR and ELR member fenced
    fenceAllInTurn();
    ApiError set =
        run(
            ctx.controller.alterConfigs(
                new ConfigResource(ConfigResource.Type.TOPIC, "t"),
                Map.of(UncleanLeaderElection.CONFIG, Optional.of("true")),
                false,
                ConfigValidator.NONE));
    assertThat(set).isEqualTo(ApiError.NONE);

    // When 3 comes back: the ELR still names replicas that hold every committed record
    run(ctx.controller.unfenceBroker(3));
    assertThat(p().leader()).isEqualTo(PartitionImage.NO_LEADER);

    // When one ELR member comes back after a crash, the other still holds everything
    reRegister(1, false);
    assertThat(p().eligibleLeaderReplicas()).containsExactly(2);
    assertThat(p().leader()).isEqualTo(PartitionImage.NO_LEADER);

    // When the other does too, the ELR is empty and the last leader (1) is fenced
    reRegister(2, false);

    // Then unclean election elects 3, alone in the ISR
    assertThat(p().eligibleLeaderReplicas()).isEmpty();
    assertThat(p().leader()).isEqualTo(3);
    assertThat(p().isr()).containsExactly(3);
    assertThat(p().lastKnownElr()).isEmpty();
  }

  @Test
  void anAdministratorsUncleanElectionMayPassOverAFencedElr() {
    // Given
    fenceAllInTurn();
    run(ctx.controller.unfenceBroker(3));

    // When
    Map<String, Map<Integer, ApiError>> elected =
        run(ctx.controller.electUncleanLeaders(Optional.of(Map.of("t", List.of(0)))));

    // Then
    assertThat(elected.get("t").get(0)).isEqualTo(ApiError.NONE);
    assertThat(p().leader()).isEqualTo(3);
    assertThat(p().isr()).containsExactly(3);
    assertThat(p().eligibleLeaderReplicas()).isEmpty();
  }

  @Test
  void theLastKnownLeaderLeadsAgainWhenTheElrIsEmpty() {
    // Given both ELR members crashed and came back fenced
    fenceAllInTurn();
    reRegister(1, false);
    reRegister(2, false);
    assertThat(p().eligibleLeaderReplicas()).isEmpty();
    assertThat(p().lastKnownElr()).containsExactly(1);

    // When 2 is unfenced, nothing: it was not the last leader
    run(ctx.controller.unfenceBroker(2));
    assertThat(p().leader()).isEqualTo(PartitionImage.NO_LEADER);

    // When 1, the last leader, is unfenced: as before the ELR, the last ISR member leads again
    run(ctx.controller.unfenceBroker(1));
    assertThat(p().leader()).isEqualTo(1);
    assertThat(p().isr()).containsExactly(1);
  }

  @Test
  void withTheElrOffTheLastIsrMemberStaysAndNoElrIsWritten() {
    // Given
    written.clear();
    ControllerTestContext off = cluster(ControllerConfig.DEFAULT.withEligibleLeaderReplicas(false));

    // When
    off.replay(off.controller.fenceBroker(3));
    off.replay(off.controller.fenceBroker(2));
    off.replay(off.controller.fenceBroker(1));

    // Then
    PartitionImage p = off.partition("t", 0);
    assertThat(p.isr()).containsExactly(1);
    assertThat(p.eligibleLeaderReplicas()).isEmpty();
    assertThat(p.lastKnownElr()).isEmpty();
  }

  @Test
  void theElrSurvivesJsonReplayAndSnapshots() {
    // Given an ELR, a last known leader, and an unclean re-registration on the way
    fenceAllInTurn();
    reRegister(2, false);

    // When a controller replays the journal's JSON from the start
    List<MetadataRecord> decoded = RecordJson.listFromJson(RecordJson.toJson(written));
    MetadataImage replayed = MetadataImage.EMPTY.apply(decoded, decoded.size());

    // Then it has the same partition, and so does one that loads a snapshot of it
    PartitionImage expected = p();
    assertThat(expected.eligibleLeaderReplicas()).containsExactly(1);
    assertThat(replayed.partition("t", 0)).contains(expected);
    List<MetadataRecord> snapshot =
        RecordJson.listFromJson(RecordJson.toJson(replayed.toRecords()));
    assertThat(MetadataImage.EMPTY.apply(snapshot, snapshot.size()).partition("t", 0))
        .contains(expected);
  }

  @Test
  void anAlterPartitionThatEmptiesNothingStillReportsItsElr() {
    // Given
    alterIsr(1);

    // When the leader adds 2 back: ISR at min ISR
    ApiError error = alterIsr(1, 2);

    // Then
    assertThat(error.error()).isEqualTo(Errors.NONE);
    assertThat(p().eligibleLeaderReplicas()).isEmpty();
  }
}
