package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.record.RemoveTopicRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class DeleteTopicTest {

  @Test
  void deleteByNameRemovesTopicPartitionsAndConfigs() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    Uuid id =
        ctx.replay(
                ctx.controller.createTopic(
                    "t",
                    2,
                    (short) 1,
                    Map.of(),
                    Map.of("retention.ms", "1"),
                    false,
                    ConfigValidator.NONE))
            .topicId();

    // When
    ControllerResult<ApiError> result = ctx.controller.deleteTopic("t");
    ctx.replay(result);

    // Then
    assertThat(result.response()).isEqualTo(ApiError.NONE);
    assertThat(result.records()).containsExactly(new RemoveTopicRecord(id));
    assertThat(ctx.image.topic("t")).isEmpty();
    assertThat(ctx.image.topic(id)).isEmpty();
    assertThat(ctx.image.configs(ConfigResource.Type.TOPIC, "t")).isEmpty();
  }

  @Test
  void deleteById() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    Uuid id = ctx.createTopic("t", 1, 1).topicId();

    // When
    ApiError error = ctx.replay(ctx.controller.deleteTopic(id));

    // Then
    assertThat(error).isEqualTo(ApiError.NONE);
    assertThat(ctx.image.topics()).isEmpty();
  }

  @Test
  void unknownTopics() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When
    ControllerResult<ApiError> byName = ctx.controller.deleteTopic("nope");
    ControllerResult<ApiError> byId = ctx.controller.deleteTopic(Uuid.randomUuid());

    // Then
    assertThat(byName.records()).isEmpty();
    assertThat(byName.response().error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(byId.records()).isEmpty();
    assertThat(byId.response().error()).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
  }

  @Test
  void aDeletedNameCanBeCreatedAgainWithANewId() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    Uuid first = ctx.createTopic("a.b", 1, 1).topicId();
    ctx.replay(ctx.controller.deleteTopic("a.b"));

    // When
    TopicResult again = ctx.createTopic("a_b", 1, 1);

    // Then
    assertThat(again.error()).isEqualTo(ApiError.NONE);
    assertThat(again.topicId()).isNotEqualTo(first);
    assertThat(
            ctx.controller
                .createPartitions("a_b", 2, Optional.of(List.of(List.of(1))), false)
                .response())
        .isEqualTo(ApiError.NONE);
  }
}
