package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.controller.MetadataException;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.FenceBrokerRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class BrokerControlTest {
  private static final List<BrokerEndpoint> ENDPOINTS =
      List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT"));

  @Test
  void registrationAssignsTheRecordsOffsetAsEpoch() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().build();
    Uuid incarnation = Uuid.randomUuid();

    // When
    ControllerResult<Long> first =
        ctx.controller.registerBroker(1, incarnation, ENDPOINTS, Optional.of("r1"));
    long epoch = ctx.replay(first);

    // Then
    assertThat(epoch).isEqualTo(ctx.image.offset());
    assertThat(first.records())
        .containsExactly(
            new RegisterBrokerRecord(1, incarnation, epoch, ENDPOINTS, Optional.of("r1"), false));
    assertThat(ctx.image.brokers().get(1))
        .isEqualTo(
            new BrokerRegistration(1, incarnation, epoch, ENDPOINTS, Optional.of("r1"), false));
  }

  @Test
  void sameIncarnationAgainIsIdempotentAndANewIncarnationGetsAHigherEpoch() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(2).build();
    Uuid incarnation = Uuid.randomUuid();
    long epoch =
        ctx.replay(ctx.controller.registerBroker(1, incarnation, ENDPOINTS, Optional.empty()));

    // When
    ControllerResult<Long> retry =
        ctx.controller.registerBroker(1, incarnation, ENDPOINTS, Optional.empty());
    long restarted =
        ctx.replay(
            ctx.controller.registerBroker(1, Uuid.randomUuid(), ENDPOINTS, Optional.empty()));

    // Then
    assertThat(retry.records()).isEmpty();
    assertThat(retry.response()).isEqualTo(epoch);
    assertThat(restarted).isGreaterThan(epoch);
    assertThat(ctx.image.brokers().get(1).epoch()).isEqualTo(restarted);
  }

  @Test
  void negativeBrokerIdIsRefused() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().build();

    // When / Then
    assertThatThrownBy(
            () -> ctx.controller.registerBroker(-1, Uuid.randomUuid(), ENDPOINTS, Optional.empty()))
        .isInstanceOf(MetadataException.class)
        .satisfies(
            e ->
                assertThat(((MetadataException) e).error().error())
                    .isEqualTo(Errors.INVALID_REQUEST));
  }

  @Test
  void fenceBrokerMovesLeadershipAndShrinksIsrs() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3, 4).build();
    ctx.replay(
        ctx.controller.createTopic(
            "t",
            -1,
            (short) -1,
            Map.of(0, List.of(1, 2, 3), 1, List.of(2, 1, 3), 2, List.of(2, 3, 4)),
            Map.of(),
            false,
            ConfigValidator.NONE));
    Uuid id = ctx.topic("t").id();
    long epoch = ctx.image.brokers().get(1).epoch();

    // When
    ControllerResult<ApiError> result = ctx.controller.fenceBroker(1);
    ctx.replay(result);

    // Then
    assertThat(result.response()).isEqualTo(ApiError.NONE);
    assertThat(result.records())
        .containsExactly(
            new FenceBrokerRecord(1, epoch),
            new PartitionChangeRecord(id, 0, Optional.of(List.of(2, 3)), Optional.of(2)),
            new PartitionChangeRecord(id, 1, Optional.of(List.of(2, 3)), Optional.empty()));
    assertThat(ctx.image.brokers().get(1).fenced()).isTrue();
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(1, 2, 3), List.of(2, 3), 2, 1, 1));
    assertThat(ctx.partition("t", 1))
        .isEqualTo(new PartitionImage(List.of(2, 1, 3), List.of(2, 3), 2, 0, 1));
    assertThat(ctx.partition("t", 2))
        .isEqualTo(new PartitionImage(List.of(2, 3, 4), List.of(2, 3, 4), 2, 0, 0));
  }

  @Test
  void fencingTheLastIsrMemberLeavesThePartitionLeaderlessButKeepsTheIsr() {
    // Given
    ControllerTestContext ctx =
        ControllerTestContext.builder()
            // Without the ELR the last ISR member stays in the ISR (see
            // EligibleLeaderReplicasTest).
            .withConfig(ControllerConfig.DEFAULT.withEligibleLeaderReplicas(false))
            .withBrokers(1, 2)
            .build();
    ctx.replay(
        ctx.controller.createTopic(
            "t", -1, (short) -1, Map.of(0, List.of(1, 2)), Map.of(), false, ConfigValidator.NONE));
    ctx.replay(ctx.controller.fenceBroker(2));

    // When
    ctx.replay(ctx.controller.fenceBroker(1));

    // Then
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(1, 2), List.of(1), -1, 1, 2));
  }

  @Test
  void leadershipSkipsFencedIsrMembers() {
    // Given: ISR [1, 2, 3] where 2 is fenced but, as the only way, was never removed
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3).build();
    ctx.replay(
        ctx.controller.createTopic(
            "t",
            -1,
            (short) -1,
            Map.of(0, List.of(1, 2, 3)),
            Map.of(),
            false,
            ConfigValidator.NONE));
    ctx.image =
        ctx.image.apply(
            List.of(new FenceBrokerRecord(2, ctx.image.brokers().get(2).epoch())),
            ctx.image.offset() + 1);

    // When
    ctx.replay(ctx.controller.fenceBroker(1));

    // Then
    assertThat(ctx.partition("t", 0).leader()).isEqualTo(3);
  }

  @Test
  void unfencingElectsTheBrokerWhereItIsTheLastIsrMember() {
    // Given: both partitions leaderless with ISR [1] after fencing 2, then 1
    ControllerTestContext ctx =
        ControllerTestContext.builder()
            // Without the ELR the last ISR member stays in the ISR (see
            // EligibleLeaderReplicasTest).
            .withConfig(ControllerConfig.DEFAULT.withEligibleLeaderReplicas(false))
            .withBrokers(1, 2)
            .build();
    ctx.replay(
        ctx.controller.createTopic(
            "t",
            -1,
            (short) -1,
            Map.of(0, List.of(1, 2), 1, List.of(2, 1)),
            Map.of(),
            false,
            ConfigValidator.NONE));
    ctx.replay(ctx.controller.fenceBroker(2));
    ctx.replay(ctx.controller.fenceBroker(1));
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(1, 2), List.of(1), -1, 1, 2));
    assertThat(ctx.partition("t", 1))
        .isEqualTo(new PartitionImage(List.of(2, 1), List.of(1), -1, 2, 2));

    // When
    ControllerResult<ApiError> unfence2 = ctx.controller.unfenceBroker(2);
    ctx.replay(unfence2);
    ApiError error = ctx.replay(ctx.controller.unfenceBroker(1));

    // Then: 2 is not in any ISR so it leads nothing; rejoining ISRs is the leaders' job
    assertThat(unfence2.records()).hasSize(1);
    assertThat(error).isEqualTo(ApiError.NONE);
    assertThat(ctx.image.brokers().get(1).fenced()).isFalse();
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(1, 2), List.of(1), 1, 2, 3));
    assertThat(ctx.partition("t", 1))
        .isEqualTo(new PartitionImage(List.of(2, 1), List.of(1), 1, 3, 3));
  }

  @Test
  void reRegisteringAFencedBrokerUnfencesItAndElectsIt() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.createTopic("t", 2, 1);
    ctx.replay(ctx.controller.fenceBroker(1));

    // When
    ctx.register(1, Optional.empty());

    // Then
    assertThat(ctx.image.brokers().get(1).fenced()).isFalse();
    assertThat(ctx.topic("t").partitions().values()).allMatch(p -> p.leader() == 1);
  }

  @Test
  void unregisterMovesLeadershipAndRemovesTheBroker() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    ctx.replay(
        ctx.controller.createTopic(
            "t", -1, (short) -1, Map.of(0, List.of(1, 2)), Map.of(), false, ConfigValidator.NONE));

    // When
    ApiError error = ctx.replay(ctx.controller.unregisterBroker(1));

    // Then
    assertThat(error).isEqualTo(ApiError.NONE);
    assertThat(ctx.image.brokers()).containsOnlyKeys(2);
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(1, 2), List.of(2), 2, 1, 1));
  }

  @Test
  void unknownAndNoOpCases() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When / Then
    assertThat(ctx.controller.fenceBroker(9).response().error())
        .isEqualTo(Errors.BROKER_ID_NOT_REGISTERED);
    assertThat(ctx.controller.unfenceBroker(9).response().error())
        .isEqualTo(Errors.BROKER_ID_NOT_REGISTERED);
    assertThat(ctx.controller.unregisterBroker(9).response().error())
        .isEqualTo(Errors.BROKER_ID_NOT_REGISTERED);
    assertThat(ctx.controller.unfenceBroker(1).records()).isEmpty();
    ctx.replay(ctx.controller.fenceBroker(1));
    assertThat(ctx.controller.fenceBroker(1).records()).isEmpty();
  }
}
