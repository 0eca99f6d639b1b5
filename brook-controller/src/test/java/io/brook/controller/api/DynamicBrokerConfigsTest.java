package io.brook.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.controller.ApiError;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Which broker configs may change at runtime, and with which values. */
class DynamicBrokerConfigsTest {
  @Test
  void theThrottleRatesMayBeSetAndDeletedPerBrokerOrForAll() {
    assertThat(
            DynamicBrokerConfigs.check(
                "1",
                Map.of(
                    "leader.replication.throttled.rate", Optional.of("1048576"),
                    "follower.replication.throttled.rate", Optional.empty())))
        .isEqualTo(ApiError.NONE);
    assertThat(
            DynamicBrokerConfigs.check(
                "", Map.of("replica.alter.log.dirs.io.max.bytes.per.second", Optional.empty())))
        .isEqualTo(ApiError.NONE);
  }

  @Test
  void otherConfigsBadValuesAndBadBrokerIdsAreRefused() {
    assertThat(
            DynamicBrokerConfigs.check("1", Map.of("log.retention.ms", Optional.of("1"))).error())
        .isEqualTo(Errors.INVALID_REQUEST);
    assertThat(
            DynamicBrokerConfigs.check(
                    "1", Map.of("leader.replication.throttled.rate", Optional.of("-1")))
                .error())
        .isEqualTo(Errors.INVALID_CONFIG);
    assertThat(
            DynamicBrokerConfigs.check(
                    "1", Map.of("leader.replication.throttled.rate", Optional.of("fast")))
                .error())
        .isEqualTo(Errors.INVALID_CONFIG);
    assertThat(
            DynamicBrokerConfigs.check(
                    "b1", Map.of("leader.replication.throttled.rate", Optional.of("1")))
                .error())
        .isEqualTo(Errors.INVALID_REQUEST);
  }
}
