package io.brook.tests.retention;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Time retention against a real Brook with real kafka-clients: a topic config changed at runtime
 * takes effect at the next retention check, the log start offset moves, a consumer positioned below
 * it resets per {@code auto.offset.reset}, and DescribeConfigs says where each value comes from.
 */
@Timeout(120)
class RetentionIT {
  private static final long MINUTE = 60_000L;

  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("log.retention.check.interval.ms", "100")
              .config("log.segment.delete.delay.ms", "0")
              .config("log.retention.bytes", "1073741824"));

  /** Ten records 30 minutes apart, the newest now; segment.ms of one minute rolls each. */
  private static void produceOldRecords(String topic) throws Exception {
    long now = System.currentTimeMillis();
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      for (int i = 0; i < 10; i++) {
        long timestamp = now - (9 - i) * 30 * MINUTE;
        producer
            .send(new ProducerRecord<>(topic, 0, timestamp, null, ("r" + i).getBytes(UTF_8)))
            .get();
      }
    }
  }

  private static long earliest(Admin admin, String topic) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    return admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get().get(tp).offset();
  }

  @Test
  void retentionChangedAtRuntimeDeletesOldSegmentsAndConsumersBelowTheStartReset()
      throws Exception {
    // Given: retention off, ten records from 4.5 hours ago to now, one per segment
    String topic = "expiring";
    TestClients.createTopic(
        BROOK.bootstrapServers(), topic, 1, Map.of("retention.ms", "-1", "segment.ms", "60000"));
    produceOldRecords(topic);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      assertThat(earliest(admin, topic)).isZero();

      // When: retention.ms becomes 100 minutes, without a restart
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      admin
          .incrementalAlterConfigs(
              Map.of(
                  resource,
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("retention.ms", Long.toString(100 * MINUTE)),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get();

      // Then: records older than 100 minutes (r0..r5: 270..120 minutes old) go, r6..r9 stay
      await().atMost(Duration.ofSeconds(30)).until(() -> earliest(admin, topic) == 6);
      Config described = admin.describeConfigs(List.of(resource)).all().get().get(resource);
      assertThat(described.get("retention.ms").source())
          .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
      assertThat(described.get("retention.bytes").source())
          .isEqualTo(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
      assertThat(described.get("delete.retention.ms").source())
          .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    }

    // And: a consumer at offset 2 is out of range and resets to the earliest offset
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(BROOK.bootstrapServers(), "auto.offset.reset", "earliest")) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seek(tp, 2);
      List<String> values = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                  values.add(r.offset() + "=" + new String(r.value(), UTF_8));
                }
                return values.size() >= 4;
              });
      assertThat(values).containsExactly("6=r6", "7=r7", "8=r8", "9=r9");
    }
  }

  @Test
  void aConsumerWithAutoOffsetResetNoneIsToldItsOffsetIsOutOfRange() throws Exception {
    // Given
    String topic = "expired-none";
    TestClients.createTopic(
        BROOK.bootstrapServers(),
        topic,
        1,
        Map.of("retention.ms", Long.toString(100 * MINUTE), "segment.ms", "60000"));
    produceOldRecords(topic);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> earliest(admin, topic) == 6);
    }

    // When / Then
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(BROOK.bootstrapServers(), "auto.offset.reset", "none")) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seek(tp, 0);
      Throwable thrown = null;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (thrown == null && System.nanoTime() < deadline) {
        try {
          consumer.poll(Duration.ofMillis(100));
        } catch (org.apache.kafka.clients.consumer.OffsetOutOfRangeException e) {
          thrown = e;
        }
      }
      assertThat(thrown).isNotNull();
    }
  }
}
