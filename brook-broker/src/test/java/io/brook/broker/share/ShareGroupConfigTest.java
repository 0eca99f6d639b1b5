package io.brook.broker.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

  @Test
  void unknownNamesBadValuesAndBadTopicNamesAreRefused() {
    ShareGroupConfig.validate(
        Map.of("brook.share.dlq.topic", "dlq", "brook.share.redelivery.backoff.max.ms", "5"));
    assertThatThrownBy(() -> ShareGroupConfig.validate(Map.of("share.auto.offset.reset", "x")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("share.auto.offset.reset");
    assertThatThrownBy(
            () -> ShareGroupConfig.validate(Map.of("brook.share.redelivery.backoff.ms", "-5")))
        .isInstanceOf(InvalidConfigurationException.class);
    assertThatThrownBy(
            () -> ShareGroupConfig.validate(Map.of("brook.share.redelivery.backoff.ms", "soon")))
        .isInstanceOf(InvalidConfigurationException.class);
    assertThatThrownBy(() -> ShareGroupConfig.validate(Map.of("brook.share.dlq.topic", "a b")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("brook.share.dlq.topic");
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
