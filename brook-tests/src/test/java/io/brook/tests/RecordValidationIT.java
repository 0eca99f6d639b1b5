package io.brook.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Batches whose header, framing and CRC are right but whose records lie, sent over a raw socket to
 * a real broker: refused with INVALID_RECORD, nothing stored, and the partition stays readable by a
 * kafka-clients consumer. Before record-level validation the lying count was stored (the log end
 * jumped by the claimed count and consumers of the partition failed with CorruptRecordException),
 * and the bomb on the compacted topic made the broker read its 256 MiB record into one array.
 */
@Timeout(180)
class RecordValidationIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  /** 256 MiB of zeros: a few KiB with zstd, about 256 KiB with gzip; 8x the default limit. */
  private static final long BOMB_BYTES = 256L * 1024 * 1024;

  @Test
  void aBatchLyingAboutItsRecordCountIsRefusedAndThePartitionStaysReadable() throws Exception {
    // Given: two good records
    String topic = "count-lie";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    produceGood(topic, "before");

    // When: one record in a batch claiming Integer.MAX_VALUE, then a good batch
    PartitionProduceResponse lie =
        produceRaw(
            topic, HostileBatches.lyingRecordCount(Integer.MAX_VALUE, System.currentTimeMillis()));
    long endAfterLie = endOffset(topic);
    produceGood(topic, "after");

    // Then
    assertThat(Errors.forCode(lie.errorCode()))
        .as("error (message: %s)", lie.errorMessage())
        .isEqualTo(Errors.INVALID_RECORD);
    assertThat(lie.recordErrors())
        .singleElement()
        .satisfies(error -> assertThat(error.batchIndex()).isEqualTo(1));
    assertThat(endAfterLie).isEqualTo(2);
    assertThat(values(topic)).containsExactly("before-0", "before-1", "after-0", "after-1");
  }

  @Test
  void aZstdBombIsRefusedAndTimeLookupsStillAnswer() throws Exception {
    assertBombRefused("zstd-bomb", Map.of(), CompressionType.ZSTD);
  }

  @Test
  void aGzipBombIsRefusedAndTimeLookupsStillAnswer() throws Exception {
    assertBombRefused("gzip-bomb", Map.of(), CompressionType.GZIP);
  }

  @Test
  void aBombOnACompactedTopicIsRefused() throws Exception {
    assertBombRefused(
        "compacted-bomb",
        Map.of(
            "cleanup.policy", "compact", "segment.ms", "100", "min.cleanable.dirty.ratio", "0.01"),
        CompressionType.ZSTD);
  }

  private void assertBombRefused(String topic, Map<String, String> configs, CompressionType type)
      throws Exception {
    // Given
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1, configs);
    long start = System.currentTimeMillis();
    produceGood(topic, "before");
    ByteBuffer bomb = HostileBatches.bomb(type, BOMB_BYTES, System.currentTimeMillis());
    assertThat(bomb.remaining()).isLessThan(512 * 1024);

    // When
    PartitionProduceResponse refused = produceRaw(topic, bomb);
    long endAfterBomb = endOffset(topic);
    long afterBomb = System.currentTimeMillis();
    produceGood(topic, "after");

    // Then: refused, nothing stored, and ListOffsets by time and consumers still work
    assertThat(Errors.forCode(refused.errorCode()))
        .as("error (message: %s)", refused.errorMessage())
        .isEqualTo(Errors.INVALID_RECORD);
    assertThat(refused.errorMessage()).contains("brook.max.inflated.bytes.factor");
    assertThat(endAfterBomb).isEqualTo(2);
    assertThat(offsetForTime(topic, start)).isZero();
    assertThat(offsetForTime(topic, afterBomb)).isEqualTo(2);
    assertThat(values(topic)).containsExactly("before-0", "before-1", "after-0", "after-1");
  }

  private static void produceGood(String topic, String prefix) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(BROOK.bootstrapServers(), "linger.ms", "0")) {
      for (int i = 0; i < 2; i++) {
        producer
            .send(
                new ProducerRecord<>(
                    topic, 0, ("k" + i).getBytes(UTF_8), (prefix + "-" + i).getBytes(UTF_8)))
            .get();
      }
    }
  }

  private static PartitionProduceResponse produceRaw(String topic, ByteBuffer records)
      throws Exception {
    Uuid topicId;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      topicId = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
    }
    try (RawKafkaClient client = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      client.setTimeout(Duration.ofSeconds(60));
      return client.produce(topic, topicId, (short) -1, records);
    }
  }

  private static long endOffset(String topic) {
    return TestClients.endOffsets(BROOK.bootstrapServers(), topic, 1)
        .get(new TopicPartition(topic, 0));
  }

  private static long offsetForTime(String topic, long timestamp) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      ListOffsetsResultInfo info =
          admin
              .listOffsets(Map.of(tp, OffsetSpec.forTimestamp(timestamp)))
              .partitionResult(tp)
              .get();
      return info.offset();
    }
  }

  private static List<String> values(String topic) {
    return TestClients.readAll(BROOK.bootstrapServers(), topic, 1).stream()
        .map(ConsumerRecord::value)
        .map(v -> new String(v, UTF_8))
        .toList();
  }
}
