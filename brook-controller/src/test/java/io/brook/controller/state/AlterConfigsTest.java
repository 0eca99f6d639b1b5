package io.brook.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ApiError;
import io.brook.metadata.controller.ControllerResult;
import io.brook.metadata.record.ConfigRecord;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class AlterConfigsTest {
  private static final ConfigResource TOPIC = new ConfigResource(ConfigResource.Type.TOPIC, "t");

  @Test
  void setsAndDeletesTopicConfigs() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.replay(
        ctx.controller.createTopic(
            "t",
            1,
            (short) 1,
            Map.of(),
            Map.of("retention.ms", "1", "segment.bytes", "1024"),
            false,
            ConfigValidator.NONE));
    Map<String, Optional<String>> changes = new HashMap<>();
    changes.put("retention.ms", Optional.empty());
    changes.put("segment.bytes", Optional.of("2048"));
    changes.put("cleanup.policy", Optional.of("compact"));

    // When
    ControllerResult<ApiError> result =
        ctx.controller.alterConfigs(TOPIC, changes, false, ConfigValidator.NONE);
    ctx.replay(result);

    // Then
    assertThat(result.response()).isEqualTo(ApiError.NONE);
    assertThat(result.records())
        .containsExactly(
            new ConfigRecord(ConfigResource.Type.TOPIC, "t", "cleanup.policy", "compact"),
            new ConfigRecord(ConfigResource.Type.TOPIC, "t", "retention.ms", null),
            new ConfigRecord(ConfigResource.Type.TOPIC, "t", "segment.bytes", "2048"));
    assertThat(ctx.image.configs(ConfigResource.Type.TOPIC, "t"))
        .isEqualTo(Map.of("cleanup.policy", "compact", "segment.bytes", "2048"));
  }

  @Test
  void changesThatChangeNothingProduceNoRecords() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.replay(
        ctx.controller.createTopic(
            "t", 1, (short) 1, Map.of(), Map.of("retention.ms", "1"), false, ConfigValidator.NONE));

    // When
    ControllerResult<ApiError> result =
        ctx.controller.alterConfigs(
            TOPIC,
            Map.of("retention.ms", Optional.of("1"), "absent", Optional.empty()),
            false,
            ConfigValidator.NONE);

    // Then
    assertThat(result.response()).isEqualTo(ApiError.NONE);
    assertThat(result.records()).isEmpty();
  }

  @Test
  void deletingTheLastOverrideLeavesNoEmptyEntry() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.replay(
        ctx.controller.createTopic(
            "t", 1, (short) 1, Map.of(), Map.of("retention.ms", "1"), false, ConfigValidator.NONE));

    // When
    ctx.replay(
        ctx.controller.alterConfigs(
            TOPIC, Map.of("retention.ms", Optional.empty()), false, ConfigValidator.NONE));

    // Then
    assertThat(ctx.image.configs(ConfigResource.Type.TOPIC)).isEmpty();
    assertThat(ctx.image.toRecords()).noneMatch(r -> r instanceof ConfigRecord);
  }

  @Test
  void brokerAndClusterDefaultConfigs() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When
    ApiError broker =
        ctx.replay(
            ctx.controller.alterConfigs(
                new ConfigResource(ConfigResource.Type.BROKER, "1"),
                Map.of("log.cleaner.threads", Optional.of("2")),
                false,
                ConfigValidator.NONE));
    ApiError cluster =
        ctx.replay(
            ctx.controller.alterConfigs(
                new ConfigResource(ConfigResource.Type.BROKER, ""),
                Map.of("log.retention.ms", Optional.of("5")),
                false,
                ConfigValidator.NONE));

    // Then
    assertThat(broker).isEqualTo(ApiError.NONE);
    assertThat(cluster).isEqualTo(ApiError.NONE);
    assertThat(ctx.image.configs(ConfigResource.Type.BROKER, "1"))
        .isEqualTo(Map.of("log.cleaner.threads", "2"));
    assertThat(ctx.image.configs(ConfigResource.Type.BROKER, ""))
        .isEqualTo(Map.of("log.retention.ms", "5"));
  }

  @Test
  void validateOnlyAndValidatorErrors() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ctx.createTopic("t", 1, 1);
    Map<String, String> seen = new HashMap<>();
    ConfigValidator validator =
        configs -> {
          seen.putAll(configs);
          if (configs.containsKey("bad")) {
            throw new InvalidConfigurationException("bad is bad");
          }
        };

    // When
    ControllerResult<ApiError> validateOnly =
        ctx.controller.alterConfigs(TOPIC, Map.of("good", Optional.of("1")), true, validator);
    ControllerResult<ApiError> rejected =
        ctx.controller.alterConfigs(TOPIC, Map.of("bad", Optional.of("1")), false, validator);

    // Then
    assertThat(validateOnly.response()).isEqualTo(ApiError.NONE);
    assertThat(validateOnly.records()).isEmpty();
    assertThat(seen).containsEntry("good", "1");
    assertThat(rejected.response()).isEqualTo(new ApiError(Errors.INVALID_CONFIG, "bad is bad"));
    assertThat(rejected.records()).isEmpty();
  }

  @Test
  void errors() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();

    // When / Then
    assertThat(
            ctx.controller
                .alterConfigs(TOPIC, Map.of("a", Optional.of("1")), false, ConfigValidator.NONE)
                .response())
        .isEqualTo(
            new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic 't' does not exist."));
    assertThat(
            ctx.controller
                .alterConfigs(
                    new ConfigResource(ConfigResource.Type.BROKER, "x1"),
                    Map.of("a", Optional.of("1")),
                    false,
                    ConfigValidator.NONE)
                .response()
                .error())
        .isEqualTo(Errors.INVALID_REQUEST);
    assertThat(
            ctx.controller
                .alterConfigs(
                    new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "g"),
                    Map.of("a", Optional.of("1")),
                    false,
                    ConfigValidator.NONE)
                .response()
                .error())
        .isEqualTo(Errors.INVALID_REQUEST);
    assertThat(
            ctx.controller
                .alterConfigs(
                    new ConfigResource(ConfigResource.Type.GROUP, ""),
                    Map.of("a", Optional.of("1")),
                    false,
                    ConfigValidator.NONE)
                .response()
                .error())
        .isEqualTo(Errors.INVALID_REQUEST);
  }

  @Test
  void aGroupsConfigsAreStoredWithoutTheGroupExistingAndCheckedByTheValidator() {
    // Given
    ControllerTestContext ctx = ControllerTestContext.builder().withBrokers(1).build();
    ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, "orders");
    ConfigValidator onlyKnown =
        configs -> {
          if (!configs.keySet().stream().allMatch(k -> k.startsWith("known."))) {
            throw new InvalidConfigurationException("unknown group config");
          }
        };

    // When
    ControllerResult<ApiError> set =
        ctx.controller.alterConfigs(group, Map.of("known.a", Optional.of("1")), false, onlyKnown);
    ctx.replay(set);
    ControllerResult<ApiError> refused =
        ctx.controller.alterConfigs(group, Map.of("other", Optional.of("1")), false, onlyKnown);

    // Then
    assertThat(set.response()).isEqualTo(ApiError.NONE);
    assertThat(ctx.image.configs(ConfigResource.Type.GROUP, "orders"))
        .isEqualTo(Map.of("known.a", "1"));
    assertThat(refused.response().error()).isEqualTo(Errors.INVALID_CONFIG);
    assertThat(refused.records()).isEmpty();
  }
}
