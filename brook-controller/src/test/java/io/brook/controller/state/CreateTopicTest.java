package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.record.ConfigRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.TopicRecord;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class CreateTopicTest {

  @Test
  void createsTopicWithRecordsInOrder() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3).build();

    // When
    ControllerResult<TopicResult> result =
        ctx.controller.createTopic(
            "orders",
            3,
            (short) 2,
            Map.of(),
            Map.of("retention.ms", "1000", "cleanup.policy", "compact"),
            false,
            ConfigValidator.NONE);
    ctx.replay(result);

    // Then
    TopicResult response = result.response();
    assertThat(response.error()).isEqualTo(ApiError.NONE);
    assertThat(response.numPartitions()).isEqualTo(3);
    assertThat(response.replicationFactor()).isEqualTo((short) 2);
    assertThat(response.topicId()).isNotEqualTo(Uuid.ZERO_UUID);
    assertThat(result.records().get(0)).isEqualTo(new TopicRecord("orders", response.topicId()));
    assertThat(result.records().subList(1, 3))
        .containsExactly(
            new ConfigRecord(ConfigResource.Type.TOPIC, "orders", "cleanup.policy", "compact"),
            new ConfigRecord(ConfigResource.Type.TOPIC, "orders", "retention.ms", "1000"));
    assertThat(result.records().subList(3, 6)).allMatch(r -> r instanceof PartitionRecord);
    TopicImage topic = ctx.topic("orders");
    assertThat(topic.id()).isEqualTo(response.topicId());
    assertThat(topic.partitions()).hasSize(3);
    for (PartitionImage p : topic.partitions().values()) {
      assertThat(p.replicas()).hasSize(2).doesNotHaveDuplicates();
      assertThat(p.isr()).isEqualTo(p.replicas());
      assertThat(p.leader()).isEqualTo(p.replicas().get(0));
      assertThat(p.leaderEpoch()).isZero();
      assertThat(p.partitionEpoch()).isZero();
    }
    assertThat(ctx.image.configs(ConfigResource.Type.TOPIC, "orders"))
        .containsExactly(Map.entry("cleanup.policy", "compact"), Map.entry("retention.ms", "1000"));
  }

  @Test
  void minusOneUsesTheConfiguredDefaults() {
    // Given
    ControllerTestContext ctx =
        ControllerTestContext.builder()
            .withConfig(new ControllerConfig(4, (short) 2))
            .withBrokers(1, 2, 3)
            .build();

    // When
    TopicResult result = ctx.createTopic("t", -1, -1);

    // Then
    assertThat(result.numPartitions()).isEqualTo(4);
    assertThat(result.replicationFactor()).isEqualTo((short) 2);
    assertThat(ctx.topic("t").partitions().values())
        .allSatisfy(p -> assertThat(p.replicas()).hasSize(2));
  }

  @Test
  void validateOnlyAnswersWithoutRecords() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();

    // When
    ControllerResult<TopicResult> result =
        ctx.controller.createTopic(
            "t", 5, (short) 2, Map.of(), Map.of(), true, ConfigValidator.NONE);

    // Then
    assertThat(result.records()).isEmpty();
    assertThat(result.response())
        .isEqualTo(new TopicResult("t", Uuid.ZERO_UUID, 5, (short) 2, ApiError.NONE));
  }

  @Test
  void validateOnlyStillReportsErrors() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.createTopic("t", 1, 1);

    // When
    ControllerResult<TopicResult> result =
        ctx.controller.createTopic(
            "t", 1, (short) 1, Map.of(), Map.of(), true, ConfigValidator.NONE);

    // Then
    assertThat(result.records()).isEmpty();
    assertThat(result.response().error().error()).isEqualTo(Errors.TOPIC_ALREADY_EXISTS);
  }

  @Test
  void duplicateTopicIsRefused() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    Uuid id = ctx.createTopic("t", 1, 1).topicId();

    // When
    ControllerResult<TopicResult> result =
        ctx.controller.createTopic(
            "t", 1, (short) 1, Map.of(), Map.of(), false, ConfigValidator.NONE);

    // Then
    assertThat(result.records()).isEmpty();
    assertThat(result.response())
        .isEqualTo(
            new TopicResult(
                "t",
                Uuid.ZERO_UUID,
                -1,
                (short) -1,
                new ApiError(Errors.TOPIC_ALREADY_EXISTS, "Topic 't' already exists.")));
    assertThat(ctx.topic("t").id()).isEqualTo(id);
  }

  @Test
  void replicationFactorAboveUnfencedBrokersIsRefused() {
    // Given
    ControllerTestContext ctx =
        ControllerTestContext.builder().withBrokers(1, 2).withFencedBrokers(2).build();

    // When
    TopicResult result = ctx.createTopic("t", 1, 2);

    // Then
    assertThat(result.error())
        .isEqualTo(
            new ApiError(
                Errors.INVALID_REPLICATION_FACTOR,
                "Unable to replicate the partition 2 time(s): The target replication factor of 2"
                    + " cannot be reached because only 1 broker(s) are registered."));
  }

  @Test
  void noBrokersAtAllIsInvalidReplicationFactor() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().build();

    // When
    TopicResult result = ctx.createTopic("t", 1, -1);

    // Then
    assertThat(result.error().error()).isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
    assertThat(result.error().message()).endsWith("because only 0 broker(s) are registered.");
  }

  @Test
  void nonPositiveCountsAreRefused() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When
    TopicResult zeroPartitions = ctx.createTopic("t", 0, 1);
    TopicResult negativePartitions = ctx.createTopic("t", -2, 1);
    TopicResult zeroReplicas = ctx.createTopic("t", 1, 0);
    TopicResult negativeReplicas = ctx.createTopic("t", 1, -5);

    // Then
    ApiError partitions =
        new ApiError(
            Errors.INVALID_PARTITIONS,
            "Number of partitions was set to an invalid non-positive value.");
    ApiError replicas =
        new ApiError(
            Errors.INVALID_REPLICATION_FACTOR,
            "Replication factor must be larger than 0, or -1 to use the default value.");
    assertThat(zeroPartitions.error()).isEqualTo(partitions);
    assertThat(negativePartitions.error()).isEqualTo(partitions);
    assertThat(zeroReplicas.error()).isEqualTo(replicas);
    assertThat(negativeReplicas.error()).isEqualTo(replicas);
    assertThat(ctx.image.topic("t")).isEmpty();
  }

  @Test
  void tooManyPartitionsIsAPolicyViolation() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When
    TopicResult result = ctx.createTopic("t", Integer.MAX_VALUE, 1);

    // Then
    assertThat(result.error())
        .isEqualTo(
            new ApiError(
                Errors.POLICY_VIOLATION, "Unable to perform excessively large batch operation."));
  }

  @Test
  void manualAssignmentIsUsedAsGiven() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3).build();

    // When
    TopicResult result =
        ctx.replay(
            ctx.controller.createTopic(
                "t",
                -1,
                (short) -1,
                Map.of(0, List.of(3, 1), 1, List.of(2, 3)),
                Map.of(),
                false,
                ConfigValidator.NONE));

    // Then
    assertThat(result.numPartitions()).isEqualTo(2);
    assertThat(result.replicationFactor()).isEqualTo((short) 2);
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(3, 1), List.of(3, 1), 3, 0, 0));
    assertThat(ctx.partition("t", 1))
        .isEqualTo(new PartitionImage(List.of(2, 3), List.of(2, 3), 2, 0, 0));
  }

  @Test
  void manualAssignmentLeavesFencedReplicasOutOfTheIsr() {
    // Given
    ControllerTestContext ctx =
        ControllerTestContext.builder().withBrokers(1, 2).withFencedBrokers(1).build();

    // When
    ctx.replay(
        ctx.controller.createTopic(
            "t", -1, (short) -1, Map.of(0, List.of(1, 2)), Map.of(), false, ConfigValidator.NONE));

    // Then
    assertThat(ctx.partition("t", 0))
        .isEqualTo(new PartitionImage(List.of(1, 2), List.of(2), 2, 0, 0));
  }

  @Test
  void manualAssignmentErrors() {
    // Given
    ControllerTestContext ctx =
        ControllerTestContext.builder().withBrokers(1, 2, 3).withFencedBrokers(3).build();
    Map<Map<Integer, List<Integer>>, ApiError> cases = new HashMap<>();
    cases.put(
        Map.of(0, List.of()),
        invalid("The manual partition assignment includes an empty replica list."));
    cases.put(
        Map.of(0, List.of(2, 9, 7)),
        invalid(
            "The manual partition assignment includes broker 7, but no such broker is registered."));
    cases.put(
        Map.of(0, List.of(2, 1, 2)),
        invalid("The manual partition assignment includes the broker 2 more than once."));
    cases.put(
        Map.of(0, List.of(1, 2), 1, List.of(1)),
        invalid(
            "The manual partition assignment includes a partition with 1 replica(s), but this is"
                + " not consistent with previous partitions, which have 2 replica(s)."));
    cases.put(
        Map.of(0, List.of(1), 2, List.of(2)),
        invalid("partitions should be a consecutive 0-based integer sequence"));
    cases.put(
        Map.of(-1, List.of(1)),
        invalid("partitions should be a consecutive 0-based integer sequence"));
    cases.put(
        Map.of(0, List.of(1), 1, List.of(3)),
        invalid(
            "All brokers specified in the manual partition assignment for partition 1 are fenced"
                + " or in controlled shutdown."));

    for (Map.Entry<Map<Integer, List<Integer>>, ApiError> c : cases.entrySet()) {
      // When
      ControllerResult<TopicResult> result =
          ctx.controller.createTopic(
              "t", -1, (short) -1, c.getKey(), Map.of(), false, ConfigValidator.NONE);

      // Then
      assertThat(result.records()).as("%s", c.getKey()).isEmpty();
      assertThat(result.response().error()).as("%s", c.getKey()).isEqualTo(c.getValue());
    }
  }

  @Test
  void manualAssignmentNeedsMinusOneCounts() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When
    TopicResult withRf =
        ctx.controller
            .createTopic(
                "t", -1, (short) 1, Map.of(0, List.of(1)), Map.of(), false, ConfigValidator.NONE)
            .response();
    TopicResult withPartitions =
        ctx.controller
            .createTopic(
                "t", 1, (short) -1, Map.of(0, List.of(1)), Map.of(), false, ConfigValidator.NONE)
            .response();

    // Then
    assertThat(withRf.error())
        .isEqualTo(
            new ApiError(
                Errors.INVALID_REQUEST,
                "A manual partition assignment was specified, but replication factor was not set"
                    + " to -1."));
    assertThat(withPartitions.error())
        .isEqualTo(
            new ApiError(
                Errors.INVALID_REQUEST,
                "A manual partition assignment was specified, but numPartitions was not set to"
                    + " -1."));
  }

  @Test
  void configsRejectedByTheValidatorAreInvalidConfig() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ConfigValidator validator =
        configs -> {
          if (configs.containsKey("retention.ms") && configs.get("retention.ms").startsWith("-x")) {
            throw new InvalidConfigurationException("Invalid value -x for retention.ms");
          }
        };

    // When
    ControllerResult<TopicResult> result =
        ctx.controller.createTopic(
            "t", 1, (short) 1, Map.of(), Map.of("retention.ms", "-x"), false, validator);

    // Then
    assertThat(result.records()).isEmpty();
    assertThat(result.response().error())
        .isEqualTo(new ApiError(Errors.INVALID_CONFIG, "Invalid value -x for retention.ms"));
  }

  @Test
  void validatorErrorsKeepTheirOwnCodeAndPlainApiExceptionsBecomeInvalidConfig() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When
    TopicResult policy =
        ctx.controller
            .createTopic(
                "t",
                1,
                (short) 1,
                Map.of(),
                Map.of(),
                false,
                c -> {
                  throw new PolicyViolationException("no");
                })
            .response();
    TopicResult plain =
        ctx.controller
            .createTopic(
                "t",
                1,
                (short) 1,
                Map.of(),
                Map.of(),
                false,
                c -> {
                  throw new org.apache.kafka.common.errors.ApiException("bad");
                })
            .response();

    // Then
    assertThat(policy.error()).isEqualTo(new ApiError(Errors.POLICY_VIOLATION, "no"));
    assertThat(plain.error()).isEqualTo(new ApiError(Errors.INVALID_CONFIG, "bad"));
  }

  @Test
  void placementSpreadsLeadersAndReplicasEvenly() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3, 4).build();

    // When
    ctx.createTopic("t", 12, 3);

    // Then
    Map<Integer, Integer> leaders = new HashMap<>();
    Map<Integer, Integer> replicas = new HashMap<>();
    for (PartitionImage p : ctx.topic("t").partitions().values()) {
      leaders.merge(p.leader(), 1, Integer::sum);
      p.replicas().forEach(r -> replicas.merge(r, 1, Integer::sum));
    }
    assertThat(leaders)
        .containsOnlyKeys(1, 2, 3, 4)
        .allSatisfy((b, n) -> assertThat(n).isEqualTo(3));
    assertThat(replicas).allSatisfy((b, n) -> assertThat(n).isEqualTo(9));
  }

  @Test
  void placementStartsAtARandomBroker() {
    // Given
    Set<Integer> firstLeaders = new HashSet<>();

    // When
    for (long seed = 0; seed < 20; seed++) {
      ControllerTestContext ctx =
          ControllerTestContext.builder().withSeed(seed).withBrokers(1, 2, 3).build();
      ctx.createTopic("t", 1, 1);
      firstLeaders.add(ctx.partition("t", 0).leader());
    }

    // Then
    assertThat(firstLeaders).containsExactlyInAnyOrder(1, 2, 3);
  }

  @Test
  void rackAwarePlacementPutsReplicasOnDistinctRacks() {
    // Given: 3 racks of 2 brokers, ids interleaved so that id order alone would not spread them
    ControllerTestContext ctx =
        ControllerTestContext.builder()
            .withBroker(1, "a")
            .withBroker(2, "a")
            .withBroker(3, "b")
            .withBroker(4, "b")
            .withBroker(5, "c")
            .withBroker(6, "c")
            .build();

    // When
    ctx.createTopic("t", 30, 3);

    // Then
    Map<Integer, Integer> leaders = new HashMap<>();
    for (PartitionImage p : ctx.topic("t").partitions().values()) {
      Set<String> racks = new HashSet<>();
      p.replicas().forEach(r -> racks.add(ctx.image.brokers().get(r).rack().orElseThrow()));
      assertThat(racks).as("racks of %s", p.replicas()).hasSize(3);
      leaders.merge(p.leader(), 1, Integer::sum);
    }
    assertThat(leaders).allSatisfy((b, n) -> assertThat(n).isEqualTo(5));
  }

  @Test
  void rackAwarePlacementWithFewerRacksThanReplicasUsesEveryRack() {
    // Given
    ControllerTestContext ctx =
        ControllerTestContext.builder()
            .withBroker(1, "a")
            .withBroker(2, "a")
            .withBroker(3, "a")
            .withBroker(4, "b")
            .build();

    // When
    ctx.createTopic("t", 8, 3);

    // Then
    for (PartitionImage p : ctx.topic("t").partitions().values()) {
      assertThat(p.replicas()).contains(4).doesNotHaveDuplicates();
    }
  }

  private static ApiError invalid(String message) {
    return new ApiError(Errors.INVALID_REPLICA_ASSIGNMENT, message);
  }
}
