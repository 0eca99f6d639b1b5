package io.brook.broker.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/** A share group's configs, and the disposition headers of its dead-letter records. */
class ShareGroupConfigTest {
  @Test
  void overridesAreReadOverTheDefaults() {
    assertThat(ShareGroupConfig.of(Map.of())).isEqualTo(ShareGroupConfig.DEFAULTS);
    assertThat(
            ShareGroupConfig.of(
                Map.of(
                    "brook.share.dlq.topic", " orders-dlq ",
                    "brook.share.redelivery.backoff.ms", "100")))
        .isEqualTo(new ShareGroupConfig("orders-dlq", 100, 60_000));
    // An empty topic is none.
    assertThat(ShareGroupConfig.of(Map.of("brook.share.dlq.topic", "")).deadLetterTopic()).isNull();
  }

  private static void validate(Map<String, String> overrides) {
    ShareGroupConfig.validate(overrides, ShareGroupBounds.KAFKA_DEFAULTS);
  }

  @Test
  void unknownNamesBadValuesAndBadTopicNamesAreRefused() {
    validate(Map.of("brook.share.dlq.topic", "dlq", "brook.share.redelivery.backoff.max.ms", "5"));
    assertThatThrownBy(() -> validate(Map.of("share.auto.offset.reset", "x")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("share.auto.offset.reset");
    assertThatThrownBy(() -> validate(Map.of("brook.share.redelivery.backoff.ms", "-5")))
        .isInstanceOf(InvalidConfigurationException.class);
    assertThatThrownBy(() -> validate(Map.of("brook.share.redelivery.backoff.ms", "soon")))
        .isInstanceOf(InvalidConfigurationException.class);
    assertThatThrownBy(() -> validate(Map.of("brook.share.dlq.topic", "a b")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("brook.share.dlq.topic");
    // Kafka's other group configs are not taken.
    assertThatThrownBy(() -> validate(Map.of("consumer.session.timeout.ms", "45000")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("Unknown group config name");
  }

  @Test
  void kafkasShareConfigsAreCheckedAsKafkaChecksThem() {
    validate(
        Map.of(
            "share.auto.offset.reset", "by_duration:PT1H30M",
            "share.record.lock.duration.ms", "15000",
            "share.delivery.count.limit", "10",
            "share.partition.max.record.locks", "100",
            "share.session.timeout.ms", "60000",
            "share.heartbeat.interval.ms", "15000",
            "share.isolation.level", "read_uncommitted",
            "share.renew.acknowledge.enable", "true"));
    validate(Map.of("share.auto.offset.reset", "EARLIEST"));
    for (Map<String, String> bad :
        List.of(
            // ConfigDef's own rules
            Map.of("share.record.lock.duration.ms", "999"),
            Map.of("share.delivery.count.limit", "1"),
            Map.of("share.auto.offset.reset", "by_duration:-PT1H"),
            Map.of("share.auto.offset.reset", "by_duration:soon"),
            Map.of("share.isolation.level", "serializable"),
            // the broker's bounds, group.share.min/max.*
            Map.of("share.record.lock.duration.ms", "14999"),
            Map.of("share.record.lock.duration.ms", "60001"),
            Map.of("share.delivery.count.limit", "11"),
            Map.of("share.partition.max.record.locks", "4001"),
            Map.of("share.session.timeout.ms", "44999"),
            Map.of("share.heartbeat.interval.ms", "4999"),
            // what Brook does not do
            Map.of("share.isolation.level", "read_committed"),
            Map.of("share.renew.acknowledge.enable", "false"))) {
      assertThatThrownBy(() -> validate(bad))
          .as("%s", bad)
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining(bad.keySet().iterator().next());
    }
    // The session timeout must exceed the heartbeat interval, the broker's when not set.
    ShareGroupBounds wide =
        new ShareGroupBounds(
            15_000, 60_000, 2, 10, 100, 10_000, 1_000, 60_000, 1_000, 60_000, 45_000, 5_000);
    assertThatThrownBy(
            () -> ShareGroupConfig.validate(Map.of("share.session.timeout.ms", "5000"), wide))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("must be greater than share.heartbeat.interval.ms");
  }

  @Test
  void kafkasShareConfigsOverrideTheBrokersWithinItsBounds() {
    ShareLimits limits = new ShareLimits(30_000, 5, 2_000, 10, 45_000, false);
    ShareGroupConfig none = ShareGroupConfig.of(Map.of());
    assertThat(none.recordLockDurationMs(limits)).isEqualTo(30_000);
    assertThat(none.deliveryCountLimit(limits)).isEqualTo(5);
    assertThat(none.maxRecordLocks(limits)).isEqualTo(2_000);
    assertThat(none.autoOffsetReset(limits)).isEqualTo(ShareAutoOffsetReset.LATEST);
    assertThat(none.autoOffsetReset(new ShareLimits(30_000, 5, 2_000, 10, 45_000, true)))
        .isEqualTo(ShareAutoOffsetReset.EARLIEST);

    ShareGroupConfig own =
        ShareGroupConfig.of(
            Map.of(
                "share.record.lock.duration.ms", "20000",
                "share.delivery.count.limit", "3",
                "share.partition.max.record.locks", "500",
                "share.auto.offset.reset", "by_duration:P1D"));
    assertThat(own.recordLockDurationMs(limits)).isEqualTo(20_000);
    assertThat(own.deliveryCountLimit(limits)).isEqualTo(3);
    assertThat(own.maxRecordLocks(limits)).isEqualTo(500);
    assertThat(own.autoOffsetReset(limits))
        .isEqualTo(
            new ShareAutoOffsetReset(ShareAutoOffsetReset.Kind.BY_DURATION, Duration.ofDays(1)));

    // A value stored before the broker's bounds narrowed is capped to them, as in Kafka.
    ShareLimits narrow =
        new ShareLimits(
            30_000,
            5,
            2_000,
            10,
            45_000,
            false,
            new ShareGroupBounds(
                25_000, 40_000, 4, 6, 100, 400, 45_000, 60_000, 5_000, 15_000, 45_000, 5_000));
    assertThat(own.recordLockDurationMs(narrow)).isEqualTo(25_000);
    assertThat(own.deliveryCountLimit(narrow)).isEqualTo(4);
    assertThat(own.maxRecordLocks(narrow)).isEqualTo(400);
  }

  @Test
  void aDeadLetterKeepsTheRecordsHeadersAndNamesWhereItCameFromAndWhy() {
    ShareDeadLetters.Letter letter =
        new ShareDeadLetters.Letter(
            "orders-group",
            new TopicPartition("orders", 7),
            new SharePartition.DeadLetter(
                42, SharePartition.DeadLetterReason.DELIVERY_LIMIT, 5, false),
            new ShareDeadLetters.SourceRecord(
                1_000,
                null,
                "v".getBytes(StandardCharsets.UTF_8),
                new Header[] {new RecordHeader("trace", "t1".getBytes(StandardCharsets.UTF_8))}));

    Header[] headers = ShareDeadLetters.headers(letter, 2_000);

    assertThat(Arrays.stream(headers).map(h -> h.key() + "=" + text(h)))
        .containsExactly(
            "trace=t1",
            "brook.dlq.source.topic=orders",
            "brook.dlq.source.partition=7",
            "brook.dlq.source.offset=42",
            "brook.dlq.source.timestamp=1000",
            "brook.dlq.group=orders-group",
            "brook.dlq.delivery.count=5",
            "brook.dlq.reason=delivery-limit",
            "brook.dlq.timestamp=2000");
    assertThat(ShareDeadLetters.names(letter, headers)).isTrue();
    // Another offset, group or partition is another record.
    ShareDeadLetters.Letter other =
        new ShareDeadLetters.Letter(
            "orders-group",
            new TopicPartition("orders", 7),
            new SharePartition.DeadLetter(
                43, SharePartition.DeadLetterReason.DELIVERY_LIMIT, 5, false),
            letter.record());
    assertThat(ShareDeadLetters.names(other, headers)).isFalse();
    assertThat(ShareDeadLetters.partitionFor(new TopicPartition("orders", 7), 3)).isEqualTo(1);
  }

  private static String text(Header h) {
    return new String(h.value(), StandardCharsets.UTF_8);
  }
}
