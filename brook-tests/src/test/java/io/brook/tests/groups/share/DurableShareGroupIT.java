package io.brook.tests.groups.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrookCluster;
import io.brook.tests.TestClients;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A share group's delivery state survives the loss of the partition's leader: on a three-node
 * cluster a consumer acknowledges part of the records it was given and holds the rest, the leader
 * stops, and a new consumer of the group gets exactly the records that were not acknowledged, each
 * with its delivery count kept (second delivery), from the new leader that read the state from
 * {@code __share_group_state}.
 */
@Timeout(180)
class DurableShareGroupIT {
  private static final String TOPIC = "durable-share";
  private static final String GROUP = "durable-share-group";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private static EmbeddedBrookCluster cluster;

  @BeforeAll
  static void start() {
    cluster =
        EmbeddedBrookCluster.builder()
            .nodes(3)
            .config("offsets.topic.num.partitions", "3")
            .config("share.coordinator.state.topic.num.partitions", "3")
            .config("group.share.heartbeat.interval.ms", "500")
            .config("brook.share.auto.offset.reset", "earliest")
            .start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void anotherLeaderDeliversExactlyTheUnacknowledgedRecordsWithTheirDeliveryCounts()
      throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get();
    }
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(cluster.bootstrapServers(), "linger.ms", "50")) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        byte[] key = ("r" + i).getBytes(StandardCharsets.UTF_8);
        sent.add(producer.send(new ProducerRecord<>(TOPIC, 0, key, key)));
      }
      for (Future<RecordMetadata> f : sent) {
        f.get();
      }
    }

    // Given: the first consumer accepts r0..r4 (confirmed by the leader) and holds r5..r9
    KafkaShareConsumer<String, String> first = consumer();
    List<String> held = new ArrayList<>();
    try {
      first.subscribe(List.of(TOPIC));
      List<ConsumerRecord<String, String>> got = new ArrayList<>();
      await()
          .atMost(TIMEOUT)
          .until(
              () -> {
                first.poll(Duration.ofMillis(200)).forEach(got::add);
                return !got.isEmpty();
              });
      assertThat(got).hasSize(10);
      for (ConsumerRecord<String, String> r : got) {
        assertThat(r.deliveryCount()).contains((short) 1);
        if (r.offset() < 5) {
          first.acknowledge(r, AcknowledgeType.ACCEPT);
        } else {
          held.add(r.key());
        }
      }
      Map<TopicIdPartition, Optional<KafkaException>> committed = first.commitSync();
      assertThat(committed.values()).allMatch(Optional::isEmpty);

      // When: the partition's leader stops while the first consumer still holds r5..r9
      int leader = leaderOf(TOPIC);
      cluster.stop(leader);
      try {
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> leaderOf(TOPIC) != leader);
        // Gone with its leader: it must not fetch from the new one.
        first.close(Duration.ZERO);

        // Then: a new member gets r5..r9 again, second delivery, and never r0..r4
        Map<String, Short> redelivered = new HashMap<>();
        try (KafkaShareConsumer<String, String> second = consumer()) {
          second.subscribe(List.of(TOPIC));
          await()
              .atMost(TIMEOUT)
              .until(
                  () -> {
                    for (ConsumerRecord<String, String> r : second.poll(Duration.ofMillis(200))) {
                      redelivered.put(r.key(), r.deliveryCount().orElseThrow());
                      second.acknowledge(r, AcknowledgeType.ACCEPT);
                    }
                    second.commitSync();
                    return redelivered.size() >= held.size();
                  });
        }
        assertThat(redelivered.keySet()).containsExactlyInAnyOrderElementsOf(held);
        assertThat(redelivered.values()).containsOnly((short) 2);
      } finally {
        cluster.restart(leader);
      }
    } finally {
      first.close(Duration.ZERO);
    }
  }

  /**
   * Records a consumer rejected while the group's dead-letter topic could not be written (it did
   * not exist yet) are owed to it in the durable state; the leader stops; meanwhile the topic
   * appears, already holding two of them, as if the old leader had written them just before it
   * died. The new leader writes only the two others: each is in the topic exactly once.
   */
  @Test
  void recordsOwedToTheDeadLetterTopicAreWrittenOnceByTheNextLeader() throws Exception {
    String topic = "durable-dlq-source";
    String dlq = "durable-dlq";
    String group = "durable-dlq-group";
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3))).all().get();
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.GROUP, group),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("brook.share.dlq.topic", dlq),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get();
    }
    produce(topic, List.of("d0", "d1", "d2", "d3"));

    // Given: a consumer rejected d0..d3, confirmed (so they are durably owed), and none could be
    // written to the dead-letter topic yet
    try (KafkaShareConsumer<String, String> first = consumer(group)) {
      first.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> got = new ArrayList<>();
      await()
          .atMost(TIMEOUT)
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : first.poll(Duration.ofMillis(200))) {
                  got.add(r);
                  first.acknowledge(r, AcknowledgeType.REJECT);
                }
                assertThat(first.commitSync().values()).allMatch(Optional::isEmpty);
                return got.size() == 4;
              });
    }
    int leader = leaderOf(topic);
    // When: the leader stops, and the topic appears holding d0 and d1 already
    cluster.stop(leader);
    try {
      await().atMost(TIMEOUT).ignoreExceptions().until(() -> leaderOf(topic) != leader);
      try (Admin admin = admin()) {
        admin.createTopics(List.of(new NewTopic(dlq, 1, (short) 2))).all().get();
      }
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(cluster.bootstrapServers())) {
        for (int offset = 0; offset < 2; offset++) {
          ProducerRecord<byte[], byte[]> earlier =
              new ProducerRecord<>(dlq, 0, bytes("d" + offset), bytes("d" + offset));
          earlier.headers().add("brook.dlq.group", bytes(group));
          earlier.headers().add("brook.dlq.source.topic", bytes(topic));
          earlier.headers().add("brook.dlq.source.partition", bytes("0"));
          earlier.headers().add("brook.dlq.source.offset", bytes(Integer.toString(offset)));
          earlier.headers().add("seeded", bytes("yes"));
          producer.send(earlier).get();
        }
      }
      // A member's fetch makes the new leader read the state; it delivers what comes next
      produce(topic, List.of("after"));
      try (KafkaShareConsumer<String, String> second = consumer(group)) {
        second.subscribe(List.of(topic));
        List<String> delivered = new ArrayList<>();
        await()
            .atMost(TIMEOUT)
            .until(
                () -> {
                  for (ConsumerRecord<String, String> r : second.poll(Duration.ofMillis(200))) {
                    delivered.add(r.key());
                    second.acknowledge(r, AcknowledgeType.ACCEPT);
                  }
                  second.commitSync();
                  return delivered.contains("after");
                });
        assertThat(delivered).containsExactly("after");
        // The member stays (finding nothing more) while the new leader's metrics are read: a
        // group's metrics go with its last share-partition at a broker, which leaves memory when
        // the group's last session there ends owing nothing.
        int newLeader = leaderOf(topic);
        await()
            .atMost(TIMEOUT)
            .until(
                () -> {
                  assertThat(second.poll(Duration.ofMillis(200))).isEmpty();
                  return metric(newLeader, "dead-lettered-records-total", group) == 4
                      && metric(newLeader, "dead-letter-pending-records", group) == 0;
                });
      }

      // Then: each rejected record is in the topic once, d2 and d3 written by the new leader
      Map<String, List<String>> bySource = new HashMap<>();
      for (ConsumerRecord<byte[], byte[]> r :
          TestClients.readAll(cluster.bootstrapServers(), dlq, 1)) {
        bySource
            .computeIfAbsent(header(r, "brook.dlq.source.offset"), k -> new ArrayList<>())
            .add(header(r, "seeded") != null ? "seeded" : header(r, "brook.dlq.reason"));
      }
      assertThat(bySource)
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "0", List.of("seeded"),
                  "1", List.of("seeded"),
                  "2", List.of("rejected"),
                  "3", List.of("rejected")));
    } finally {
      cluster.restart(leader);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String header(ConsumerRecord<?, ?> r, String key) {
    org.apache.kafka.common.header.Header h = r.headers().lastHeader(key);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** A share group's metric at one node, -1 while it has none. */
  private static double metric(int node, String name, String group) {
    org.apache.kafka.common.Metric m =
        cluster
            .server(node)
            .metrics()
            .registry()
            .metric(
                new MetricName(
                    name, "kafka.server.share-group-metrics", "", Map.of("group", group)));
    return m == null ? -1 : ((Number) m.metricValue()).doubleValue();
  }

  private static void produce(String topic, List<String> keys) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(cluster.bootstrapServers())) {
      for (String key : keys) {
        producer.send(new ProducerRecord<>(topic, 0, bytes(key), bytes(key))).get();
      }
    }
  }

  private static int leaderOf(String topic) throws Exception {
    try (Admin admin = admin()) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get()
          .get(topic)
          .partitions()
          .get(0)
          .leader()
          .id();
    }
  }

  private static KafkaShareConsumer<String, String> consumer() {
    return consumer(GROUP);
  }

  private static KafkaShareConsumer<String, String> consumer(String group) {
    Properties props = new Properties();
    props.put("bootstrap.servers", cluster.bootstrapServers());
    props.put("group.id", group);
    props.put("share.acknowledgement.mode", "explicit");
    return new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
  }

  private static Admin admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    return Admin.create(props);
  }
}
