package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.record.PartitionRecord;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class CreatePartitionsTest {

  @Test
  void addsPartitionsWithTheTopicsReplicationFactor() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3).build();
    ctx.createTopic("t", 3, 2);

    // When
    ControllerResult<ApiError> result =
        ctx.controller.createPartitions("t", 5, Optional.empty(), false);
    ctx.replay(result);

    // Then
    assertThat(result.response()).isEqualTo(ApiError.NONE);
    assertThat(result.records()).hasSize(2).allMatch(r -> r instanceof PartitionRecord);
    assertThat(ctx.topic("t").partitions()).containsOnlyKeys(0, 1, 2, 3, 4);
    assertThat(ctx.topic("t").partitions().values())
        .allSatisfy(p -> assertThat(p.replicas()).hasSize(2).doesNotHaveDuplicates());
  }

  @Test
  void manualAssignmentOfNewPartitions() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2, 3).build();
    ctx.createTopic("t", 1, 2);

    // When
    ApiError error =
        ctx.replay(
            ctx.controller.createPartitions(
                "t", 3, Optional.of(List.of(List.of(3, 2), List.of(2, 1))), false));

    // Then
    assertThat(error).isEqualTo(ApiError.NONE);
    assertThat(ctx.partition("t", 1))
        .isEqualTo(new PartitionImage(List.of(3, 2), List.of(3, 2), 3, 0, 0));
    assertThat(ctx.partition("t", 2))
        .isEqualTo(new PartitionImage(List.of(2, 1), List.of(2, 1), 2, 0, 0));
  }

  @Test
  void validateOnlyWritesNothing() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.createTopic("t", 1, 1);

    // When
    ControllerResult<ApiError> result =
        ctx.controller.createPartitions("t", 4, Optional.empty(), true);

    // Then
    assertThat(result.response()).isEqualTo(ApiError.NONE);
    assertThat(result.records()).isEmpty();
  }

  @Test
  void countMustIncrease() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.createTopic("t", 3, 1);

    // When
    ApiError lower = ctx.controller.createPartitions("t", 2, Optional.empty(), false).response();
    ApiError same = ctx.controller.createPartitions("t", 3, Optional.empty(), false).response();

    // Then
    assertThat(lower)
        .isEqualTo(
            new ApiError(
                Errors.INVALID_PARTITIONS,
                "Topic currently has 3 partitions, which is higher than the requested 2."));
    assertThat(same)
        .isEqualTo(new ApiError(Errors.INVALID_PARTITIONS, "Topic already has 3 partition(s)."));
  }

  @Test
  void errors() {
    // Given
    ControllerTestContext ctx =
        ControllerTestContext.builder().withBrokers(1, 2, 3).withFencedBrokers(3).build();
    ctx.createTopic("t", 1, 2);

    // When / Then
    assertThat(
            ctx.controller.createPartitions("nope", 2, Optional.empty(), false).response().error())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(
            ctx.controller
                .createPartitions("t", 3, Optional.of(List.of(List.of(1, 2))), false)
                .response())
        .isEqualTo(
            new ApiError(
                Errors.INVALID_REPLICA_ASSIGNMENT,
                "Attempted to add 2 additional partition(s), but only 1 assignment(s) were"
                    + " specified."));
    assertThat(
            ctx.controller
                .createPartitions("t", 2, Optional.of(List.of(List.of(1))), false)
                .response())
        .isEqualTo(
            new ApiError(
                Errors.INVALID_REPLICA_ASSIGNMENT,
                "The manual partition assignment includes a partition with 1 replica(s), but this"
                    + " is not consistent with previous partitions, which have 2 replica(s)."));
    assertThat(
            ctx.controller
                .createPartitions("t", 2, Optional.of(List.of(List.of(1, 12))), false)
                .response())
        .isEqualTo(
            new ApiError(
                Errors.INVALID_REPLICA_ASSIGNMENT,
                "The manual partition assignment includes broker 12, but no such broker is"
                    + " registered."));
    assertThat(
            ctx.controller
                .createPartitions("t", 2, Optional.of(List.of(List.of(3))), false)
                .response()
                .error())
        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(ctx.topic("t").numPartitions()).isEqualTo(1);
  }

  @Test
  void notEnoughUnfencedBrokersForTheTopicsReplicationFactor() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1, 2).build();
    ctx.createTopic("t", 1, 2);
    ctx.replay(ctx.controller.fenceBroker(2));

    // When
    ApiError error = ctx.controller.createPartitions("t", 2, Optional.empty(), false).response();

    // Then
    assertThat(error)
        .isEqualTo(
            new ApiError(
                Errors.INVALID_REPLICATION_FACTOR,
                "The target replication factor of 2 cannot be reached because only 1 broker(s)"
                    + " are registered."));
  }
}
