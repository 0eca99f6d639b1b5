package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TopicNameValidationTest {
  private static final String LONGEST = "a".repeat(249);

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a",
        "orders",
        "Orders-2024.v1_final",
        "...a",
        "a..",
        "_",
        "-",
        "__consumer_offsets",
        "0123456789"
      })
  void acceptsValidNames(String name) {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When
    TopicResult result = ctx.createTopic(name, 1, 1);

    // Then
    assertThat(result.error()).isEqualTo(ApiError.NONE);
    assertThat(ctx.image.topic(name)).isPresent();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "''|Topic name is invalid: the empty string is not allowed",
        ".|Topic name is invalid: '.' is not allowed",
        "..|Topic name is invalid: '..' is not allowed",
        "a b|Topic name is invalid: 'a b' contains one or more characters other than ASCII"
            + " alphanumerics, '.', '_' and '-'",
        "a/b|Topic name is invalid: 'a/b' contains one or more characters other than ASCII"
            + " alphanumerics, '.', '_' and '-'",
        "caf\u00e9|Topic name is invalid: 'caf\u00e9' contains one or more characters other than"
            + " ASCII alphanumerics, '.', '_' and '-'",
        "a:b|Topic name is invalid: 'a:b' contains one or more characters other than ASCII"
            + " alphanumerics, '.', '_' and '-'",
      })
  void rejectsInvalidNamesWithKafkasMessages(String name, String message) {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When
    ControllerResult<TopicResult> result =
        ctx.controller.createTopic(
            name,
            1,
            (short) 1,
            java.util.Map.of(),
            java.util.Map.of(),
            false,
            ConfigValidator.NONE);

    // Then
    assertThat(result.records()).isEmpty();
    assertThat(result.response().error())
        .isEqualTo(new ApiError(Errors.INVALID_TOPIC_EXCEPTION, message));
    assertThat(result.response().topicId()).isEqualTo(org.apache.kafka.common.Uuid.ZERO_UUID);
  }

  @Test
  void accepts249CharacterNames() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When
    TopicResult result = ctx.createTopic(LONGEST, 1, 1);

    // Then
    assertThat(result.error()).isEqualTo(ApiError.NONE);
  }

  @Test
  void rejectsNamesLongerThan249Characters() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    String name = "a".repeat(250);

    // When
    TopicResult result = ctx.createTopic(name, 1, 1);

    // Then
    assertThat(result.error().error()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
    assertThat(result.error().message())
        .isEqualTo(
            "Topic name is invalid: the length of '"
                + name
                + "' is longer than the max allowed length 249");
  }

  @ParameterizedTest
  @CsvSource({"a.b,a_b", "a_b,a.b", "x.y_z,x_y.z", "x.y_z,x_y_z"})
  void rejectsNamesCollidingOnDotAndUnderscore(String existing, String name) {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.createTopic(existing, 1, 1);

    // When
    TopicResult result = ctx.createTopic(name, 1, 1);

    // Then
    assertThat(result.error())
        .isEqualTo(
            new ApiError(
                Errors.INVALID_TOPIC_EXCEPTION,
                "Topic '" + name + "' collides with existing topic: " + existing));
    assertThat(ctx.image.topic(name)).isEmpty();
  }

  @Test
  void namesWithoutCollisionCharactersNeverCollide() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.createTopic("a.b", 1, 1);

    // When
    TopicResult result = ctx.createTopic("ab", 1, 1);

    // Then
    assertThat(result.error()).isEqualTo(ApiError.NONE);
  }

  @Test
  void existingNameIsTopicAlreadyExists() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.createTopic("a.b", 1, 1);

    // When
    TopicResult result = ctx.createTopic("a.b", 1, 1);

    // Then
    assertThat(result.error())
        .isEqualTo(new ApiError(Errors.TOPIC_ALREADY_EXISTS, "Topic 'a.b' already exists."));
  }
}
