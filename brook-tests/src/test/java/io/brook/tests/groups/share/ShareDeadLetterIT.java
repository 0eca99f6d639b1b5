package io.brook.tests.groups.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Brook's share-group additions with kafka-clients' {@link KafkaShareConsumer}, configured per
 * group through Admin's IncrementalAlterConfigs on the GROUP resource: the dead-letter topic
 * (poison records end up there exactly once, with their disposition headers, while the records
 * behind them flow) and the redelivery backoff (a released record comes back only after records
 * produced after its release). One broker for the class, no sleeps.
 */
class ShareDeadLetterIT {
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("offsets.topic.num.partitions", "2")
              .config("group.share.record.lock.duration.ms", "2000")
              .config("group.share.heartbeat.interval.ms", "500")
              .config("brook.share.auto.offset.reset", "earliest"));

  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final String METRICS = "kafka.server.share-group-metrics";

  private static Admin admin;

  @BeforeAll
  static void admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    admin = Admin.create(props);
  }

  @AfterAll
  static void closeAdmin() {
    admin.close();
  }

  private static KafkaShareConsumer<String, String> consumer(String group) {
    return ShareGroupClients.explicitConsumer(BROOK.bootstrapServers(), group);
  }

  private static void setGroupConfigs(String group, Map<String, String> configs) throws Exception {
    ShareGroupClients.setGroupConfigs(admin, group, configs);
  }

  private static double metric(String name, String group) {
    org.apache.kafka.common.Metric m =
        BROOK
            .brook()
            .server()
            .metrics()
            .registry()
            .metric(new MetricName(name, METRICS, "", Map.of("group", group)));
    return m == null ? -1 : ((Number) m.metricValue()).doubleValue();
  }

  private static String header(ConsumerRecord<?, ?> r, String key) {
    Header h = r.headers().lastHeader(key);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Test
  void groupConfigsAreSetDescribedAndChecked() throws Exception {
    String group = "dlq-configs-group";
    setGroupConfigs(
        group,
        Map.of(
            "brook.share.dlq.topic", "dlq-somewhere", "brook.share.redelivery.backoff.ms", "250"));

    ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
    Config described = admin.describeConfigs(List.of(resource)).all().get().get(resource);
    assertThat(described.get("brook.share.dlq.topic").value()).isEqualTo("dlq-somewhere");
    assertThat(described.get("brook.share.dlq.topic").source())
        .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG);
    assertThat(described.get("brook.share.redelivery.backoff.ms").value()).isEqualTo("250");
    assertThat(described.get("brook.share.redelivery.backoff.max.ms").value()).isEqualTo("60000");
    assertThat(described.get("brook.share.redelivery.backoff.max.ms").source())
        .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);

    // Unknown names and bad values are refused, as Kafka refuses them.
    assertThatThrownBy(() -> setGroupConfigs(group, Map.of("no.such.config", "1")))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(InvalidConfigurationException.class);
    assertThatThrownBy(
            () -> setGroupConfigs(group, Map.of("brook.share.redelivery.backoff.ms", "-1")))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(InvalidConfigurationException.class);
  }

  @Test
  void poisonRecordsEndUpInTheDeadLetterTopicOnceWithTheirHeadersAndHealthyOnesFlow()
      throws Exception {
    String topic = "dlq-source";
    String dlq = "dlq-target";
    String group = "dlq-group";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 2);
    TestClients.createTopic(BROOK.bootstrapServers(), dlq, 1);
    setGroupConfigs(group, Map.of("brook.share.dlq.topic", dlq));

    // Given healthy records, records the consumer rejects and records it releases every time
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      keys.add("ok-" + i);
    }
    for (int i = 0; i < 3; i++) {
      keys.add("reject-" + i);
      keys.add("release-" + i);
    }
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      for (String key : keys) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        ProducerRecord<byte[], byte[]> record =
            new ProducerRecord<>(
                topic, null, bytes, ("value-" + key).getBytes(StandardCharsets.UTF_8));
        record.headers().add(new RecordHeader("trace", bytes));
        producer.send(record).get();
      }
    }

    // When a consumer of the group accepts, rejects or releases them
    Map<String, Integer> accepted = new HashMap<>();
    Map<String, List<Short>> poisonDeliveries = new HashMap<>();
    try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(POLL)) {
                  if (r.key().startsWith("ok-")) {
                    accepted.merge(r.key(), 1, Integer::sum);
                    consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                  } else {
                    poisonDeliveries
                        .computeIfAbsent(r.key(), k -> new ArrayList<>())
                        .add(r.deliveryCount().orElseThrow());
                    consumer.acknowledge(
                        r,
                        r.key().startsWith("reject-")
                            ? AcknowledgeType.REJECT
                            : AcknowledgeType.RELEASE);
                  }
                }
                consumer.commitSync();
                return accepted.size() == 40
                    && poisonDeliveries.size() == 6
                    && poisonDeliveries.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("release-"))
                        .allMatch(e -> e.getValue().size() == 5);
              });

      // Then the healthy records were each accepted once, the poison ones stopped coming
      assertThat(accepted.values()).containsOnly(1);
      poisonDeliveries.forEach(
          (key, counts) ->
              assertThat(counts)
                  .as(key)
                  .containsExactlyElementsOf(
                      key.startsWith("reject-")
                          ? List.of((short) 1)
                          : List.of((short) 1, (short) 2, (short) 3, (short) 4, (short) 5)));
      // And the broker comes to owe nothing more. The member stays (and finds nothing to
      // deliver) while that is read: a group's metrics go with its last share-partition at the
      // broker, which leaves memory when the group's last session ends owing nothing.
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                assertThat(consumer.poll(POLL)).isEmpty();
                return metric("dead-letter-pending-records", group) == 0
                    && metric("dead-lettered-records-total", group) == 6;
              });
      // The counters saw it: 6 archived, 12 redeliveries (4 per released record)
      assertThat(metric("archived-records-total", group)).isEqualTo(6);
      assertThat(metric("redelivered-records-total", group)).isEqualTo(12);
    }

    // And the dead-letter topic holds each exactly once
    List<ConsumerRecord<byte[], byte[]>> dead =
        TestClients.readAll(BROOK.bootstrapServers(), dlq, 1);
    assertThat(dead).hasSize(6);
    Map<String, ConsumerRecord<byte[], byte[]>> byKey = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : dead) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      assertThat(byKey.put(key, r)).as("%s written twice", key).isNull();
      assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("value-" + key);
      assertThat(header(r, "trace")).isEqualTo(key);
      assertThat(header(r, "brook.dlq.group")).isEqualTo(group);
      assertThat(header(r, "brook.dlq.source.topic")).isEqualTo(topic);
      assertThat(header(r, "brook.dlq.source.partition")).isIn("0", "1");
      assertThat(Long.parseLong(header(r, "brook.dlq.source.offset"))).isNotNegative();
      assertThat(Long.parseLong(header(r, "brook.dlq.source.timestamp"))).isPositive();
      assertThat(Long.parseLong(header(r, "brook.dlq.timestamp")))
          .isGreaterThanOrEqualTo(Long.parseLong(header(r, "brook.dlq.source.timestamp")));
      if (key.startsWith("reject-")) {
        assertThat(header(r, "brook.dlq.reason")).isEqualTo("rejected");
        assertThat(header(r, "brook.dlq.delivery.count")).isEqualTo("1");
      } else {
        assertThat(header(r, "brook.dlq.reason")).isEqualTo("delivery-limit");
        assertThat(header(r, "brook.dlq.delivery.count")).isEqualTo("5");
      }
    }
    assertThat(byKey.keySet()).allMatch(k -> k.startsWith("reject-") || k.startsWith("release-"));
  }

  @Test
  void aReleasedRecordComesBackOnlyAfterRecordsProducedAfterItsRelease() throws Exception {
    String topic = "backoff-source";
    String group = "backoff-group";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    // Long enough that a record produced after the release is always delivered first.
    setGroupConfigs(group, Map.of("brook.share.redelivery.backoff.ms", "5000"));
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      producer
          .send(new ProducerRecord<>(topic, "slow".getBytes(StandardCharsets.UTF_8), null))
          .get();
    }
    List<String> order = new ArrayList<>();
    try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                boolean released = false;
                for (ConsumerRecord<String, String> r : consumer.poll(POLL)) {
                  consumer.acknowledge(r, AcknowledgeType.RELEASE);
                  order.add(r.key() + "@" + r.deliveryCount().orElseThrow());
                  released = true;
                }
                consumer.commitSync();
                return released;
              });
      // Released (and confirmed): now a record is produced behind it
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(BROOK.bootstrapServers())) {
        producer
            .send(new ProducerRecord<>(topic, "after".getBytes(StandardCharsets.UTF_8), null))
            .get();
      }
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(POLL)) {
                  consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                  order.add(r.key() + "@" + r.deliveryCount().orElseThrow());
                }
                consumer.commitSync();
                return order.contains("slow@2");
              });
      // Read while the member is here: the group's metrics go with its last share-partition.
      assertThat(metric("redelivered-records-total", group)).isEqualTo(1);
    }
    // The record behind it was not held up, and the released one waited its turn.
    assertThat(order).containsExactly("slow@1", "after@1", "slow@2");
  }
}
