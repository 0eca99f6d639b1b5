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
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
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
    Properties props = new Properties();
    props.put("bootstrap.servers", cluster.bootstrapServers());
    props.put("group.id", GROUP);
    props.put("share.acknowledgement.mode", "explicit");
    return new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
  }

  private static Admin admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    return Admin.create(props);
  }
}
