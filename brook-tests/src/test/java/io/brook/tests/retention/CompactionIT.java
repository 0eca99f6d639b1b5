package io.brook.tests.retention;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The log cleaner inside a real Brook: a compacted topic written by kafka-clients' producer ends up
 * holding the latest value per key, read back by kafka-clients' consumer from offset 0.
 */
@Timeout(120)
class CompactionIT {
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("log.cleaner.backoff.ms", "50")
              .config("log.cleaner.dedupe.buffer.size", "4194304")
              .config("log.segment.delete.delay.ms", "0"));

  @Test
  void aCompactedTopicKeepsTheLatestValuePerKey() throws Exception {
    // Given: segment.ms of one second in record time, so each version of the keys rolls a segment
    String topic = "compacted";
    TestClients.createTopic(
        BROOK.bootstrapServers(),
        topic,
        1,
        Map.of(
            "cleanup.policy", "compact",
            "segment.ms", "1000",
            "min.cleanable.dirty.ratio", "0.01"));
    long base = System.currentTimeMillis() - 3_600_000;
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(BROOK.bootstrapServers(), "linger.ms", "5")) {
      for (int version = 0; version < 5; version++) {
        for (int key = 0; key < 100; key++) {
          producer.send(
              new ProducerRecord<>(
                  topic,
                  0,
                  base + version * 10_000L,
                  ("key-" + key).getBytes(UTF_8),
                  ("value-" + key + "-" + version).getBytes(UTF_8)));
        }
        producer.flush();
      }
      // The active segment is never cleaned: end the log with a segment of its own.
      producer
          .send(
              new ProducerRecord<>(
                  topic, 0, base + 100_000L, "end".getBytes(UTF_8), "end".getBytes(UTF_8)))
          .get();
    }

    // When: the cleaner runs on its own
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> TestClients.readAll(BROOK.bootstrapServers(), topic, 1).size() == 101);

    // Then: exactly the latest value of each key, in increasing offsets
    List<ConsumerRecord<byte[], byte[]>> records =
        TestClients.readAll(BROOK.bootstrapServers(), topic, 1);
    Map<String, String> latest = new LinkedHashMap<>();
    long previous = -1;
    for (ConsumerRecord<byte[], byte[]> r : records) {
      assertThat(r.offset()).isGreaterThan(previous);
      previous = r.offset();
      latest.put(
          new String(r.key(), UTF_8), r.value() == null ? null : new String(r.value(), UTF_8));
    }
    assertThat(latest).hasSize(101);
    for (int key = 0; key < 100; key++) {
      assertThat(latest).containsEntry("key-" + key, "value-" + key + "-4");
    }
  }
}
