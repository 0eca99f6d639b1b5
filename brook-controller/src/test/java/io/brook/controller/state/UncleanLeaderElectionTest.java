package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.controller.state.IsrChangeRequest.IsrMember;
import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.PartitionImage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Unclean leader election: when every ISR member is fenced, a topic that allows it gets an
 * out-of-sync replica as leader, with an ISR of that replica alone.
 */
class UncleanLeaderElectionTest {
  private static final ConfigResource TOPIC = new ConfigResource(ConfigResource.Type.TOPIC, "t");
  private static final ConfigResource CLUSTER = new ConfigResource(ConfigResource.Type.BROKER, "");

  /** Topic "t" on replicas 1, 2, 3 with 1 the only ISR member: 2 and 3 fell behind. */
  private static ControllerTestContext onlyOneInSync(ControllerConfig config) {
    ControllerTestContext ctx =
        ControllerTestContext.builder()
            // Without the ELR, as before KIP-966: see EligibleLeaderReplicasTest for both together.
            .withConfig(config.withEligibleLeaderReplicas(false))
            .withBrokers(1, 2, 3)
            .build();
    ctx.replay(
        ctx.controller.createTopic(
            "t",
            -1,
            (short) -1,
            Map.of(0, List.of(1, 2, 3)),
            Map.of(),
            false,
            ConfigValidator.NONE));
    IsrChangeRequest shrink =
        new IsrChangeRequest(
            ctx.topic("t").id(), 0, 0, 0, List.of(IsrMember.of(1)), IsrControl.RECOVERED);
    long epoch = ctx.image.brokers().get(1).epoch();
    List<IsrChangeResult> results =
        ctx.replay(ctx.controller.alterPartition(1, epoch, List.of(shrink)));
    assertThat(results.get(0).error()).isEqualTo(ApiError.NONE);
    return ctx;
  }

  private static ControllerTestContext onlyOneInSync() {
    return onlyOneInSync(ControllerConfig.DEFAULT);
  }

  private static void set(ControllerTestContext ctx, ConfigResource resource, String value) {
    ApiError error =
        ctx.replay(
            ctx.controller.alterConfigs(
                resource,
                Map.of(UncleanLeaderElection.CONFIG, Optional.of(value)),
                false,
                ConfigValidator.NONE));
    assertThat(error).isEqualTo(ApiError.NONE);
  }

  @Test
  void offByDefaultTheLastIsrMemberStaysAndThePartitionHasNoLeader() {
    // Given
    ControllerTestContext ctx = onlyOneInSync();

    // When the only in-sync replica is fenced
    ctx.replay(ctx.controller.fenceBroker(1));

    // Then nothing it alone held is lost: the partition waits for it
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.leader()).isEqualTo(PartitionImage.NO_LEADER);
    assertThat(p.isr()).containsExactly(1);
  }

  @Test
  void enabledOnTheTopicTheFirstUnfencedReplicaLeadsAlone() {
    // Given 2 is fenced too, so 3 is the first unfenced replica
    ControllerTestContext ctx = onlyOneInSync();
    set(ctx, TOPIC, "true");
    ctx.replay(ctx.controller.fenceBroker(2));

    // When
    ctx.replay(ctx.controller.fenceBroker(1));

    // Then
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.leader()).isEqualTo(3);
    assertThat(p.isr()).containsExactly(3);
    assertThat(p.leaderEpoch()).isEqualTo(1);
  }

  @Test
  void theClusterDefaultAndTheControllersStaticDefaultApplyWhenTheTopicSaysNothing() {
    ControllerTestContext byCluster = onlyOneInSync();
    set(byCluster, CLUSTER, "true");
    byCluster.replay(byCluster.controller.fenceBroker(1));
    assertThat(byCluster.partition("t", 0).leader()).isEqualTo(2);

    ControllerTestContext byStatic =
        onlyOneInSync(ControllerConfig.DEFAULT.withUncleanLeaderElectionEnable(true));
    byStatic.replay(byStatic.controller.fenceBroker(1));
    assertThat(byStatic.partition("t", 0).leader()).isEqualTo(2);
  }

  @Test
  void theTopicsOverrideWinsOverTheDefaults() {
    ControllerTestContext ctx =
        onlyOneInSync(ControllerConfig.DEFAULT.withUncleanLeaderElectionEnable(true));
    set(ctx, CLUSTER, "true");
    set(ctx, TOPIC, "false");

    ctx.replay(ctx.controller.fenceBroker(1));

    assertThat(ctx.partition("t", 0).leader()).isEqualTo(PartitionImage.NO_LEADER);
  }

  @Test
  void aLeaderlessPartitionGetsAnOutOfSyncReplicaWhenOneIsUnfenced() {
    // Given every replica fenced, 1 last in sync, and unclean election allowed afterwards
    ControllerTestContext ctx = onlyOneInSync();
    ctx.replay(ctx.controller.fenceBroker(2));
    ctx.replay(ctx.controller.fenceBroker(3));
    ctx.replay(ctx.controller.fenceBroker(1));
    set(ctx, TOPIC, "true");
    assertThat(ctx.partition("t", 0).leader()).isEqualTo(PartitionImage.NO_LEADER);

    // When 3, out of sync, comes back
    ctx.replay(ctx.controller.unfenceBroker(3));

    // Then it leads alone
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.leader()).isEqualTo(3);
    assertThat(p.isr()).containsExactly(3);
  }

  @Test
  void withoutUncleanElectionAnOutOfSyncReplicaComingBackElectsNobody() {
    ControllerTestContext ctx = onlyOneInSync();
    ctx.replay(ctx.controller.fenceBroker(2));
    ctx.replay(ctx.controller.fenceBroker(1));

    ControllerResult<ApiError> unfence = ctx.controller.unfenceBroker(2);
    ctx.replay(unfence);

    assertThat(unfence.records()).hasSize(1); // the unfencing only
    assertThat(ctx.partition("t", 0).leader()).isEqualTo(PartitionImage.NO_LEADER);
  }

  @Test
  void electLeadersUncleanElectsWhereThereIsNoLeaderOnly() {
    // Given a leaderless partition on a topic that does not allow unclean election, and "u" led
    ControllerTestContext ctx = onlyOneInSync();
    ctx.replay(
        ctx.controller.createTopic(
            "u", -1, (short) -1, Map.of(0, List.of(2)), Map.of(), false, ConfigValidator.NONE));
    ctx.replay(ctx.controller.fenceBroker(1));

    // When an administrator asks for it
    Map<String, Map<Integer, ApiError>> results =
        ctx.replay(
            ctx.controller.electUncleanLeaders(
                Optional.of(Map.of("t", List.of(0, 9), "u", List.of(0)))));

    // Then
    assertThat(results.get("t").get(0)).isEqualTo(ApiError.NONE);
    assertThat(results.get("t").get(9).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(results.get("u").get(0).error()).isEqualTo(Errors.ELECTION_NOT_NEEDED);
    PartitionImage p = ctx.partition("t", 0);
    assertThat(p.leader()).isEqualTo(2);
    assertThat(p.isr()).containsExactly(2);
  }

  @Test
  void electLeadersUncleanWithNoUnfencedReplicaCannotElect() {
    ControllerTestContext ctx = onlyOneInSync();
    ctx.replay(ctx.controller.fenceBroker(2));
    ctx.replay(ctx.controller.fenceBroker(3));
    ctx.replay(ctx.controller.fenceBroker(1));

    ControllerResult<Map<String, Map<Integer, ApiError>>> result =
        ctx.controller.electUncleanLeaders(Optional.of(Map.of("t", List.of(0))));

    assertThat(result.records()).isEmpty();
    assertThat(result.response().get("t").get(0).error())
        .isEqualTo(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE);
  }

  @Test
  void electLeadersUncleanForAllPartitionsReportsOnlyTheElected() {
    ControllerTestContext ctx = onlyOneInSync();
    ctx.replay(ctx.controller.fenceBroker(1));

    Map<String, Map<Integer, ApiError>> results =
        ctx.replay(ctx.controller.electUncleanLeaders(Optional.empty()));

    assertThat(results).containsOnlyKeys("t");
    assertThat(ctx.partition("t", 0).leader()).isEqualTo(2);
  }
}
