package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication across three combined nodes (separate JVMs): acks=all writes reach every in-sync
 * replica, and when a partition's leader is killed its successor, chosen from the ISR, holds every
 * acknowledged record.
 */
class ReplicationIT {
  @TempDir static Path dir;
  private static ClusterHarness cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = ClusterHarness.start(dir, 3, Map.of());
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void acknowledgedRecordsSurviveTheLeadersDeath() throws Exception {
    String topic = "payments";
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, 3, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get();
    }
    Map<Integer, List<String>> acked = new HashMap<>();
    try (KafkaProducer<String, String> producer = producer()) {
      send(producer, topic, 0, 3_000, acked);

      Node victim = cluster.node(leaderOf(topic, 0));
      victim.kill();
      long killed = System.nanoTime();
      send(producer, topic, 3_000, 3_000, acked);
      System.out.println(
          "6,000 records acknowledged; the second half within "
              + (System.nanoTime() - killed) / 1_000_000
              + " ms of killing leader "
              + victim.id());
      victim.restart();
      send(producer, topic, 6_000, 1_000, acked);
    }

    Map<Integer, List<String>> consumed = consumeAll(topic, 3, 7_000);
    for (int p = 0; p < 3; p++) {
      assertThat(consumed.get(p))
          .as("partition %d in order, exactly once", p)
          .isEqualTo(acked.get(p));
    }
    // The restarted replica catches up and rejoins every ISR.
    await("every ISR back to three replicas")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> describe(topic).partitions().stream().allMatch(p -> p.isr().size() == 3));
  }

  /** Sends {@code count} keyed records and records each acknowledged one under its partition. */
  static void send(
      KafkaProducer<String, String> producer,
      String topic,
      int from,
      int count,
      Map<Integer, List<String>> acked)
      throws Exception {
    List<Future<RecordMetadata>> futures = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      String value = "record-" + i;
      values.add(value);
      futures.add(producer.send(new ProducerRecord<>(topic, "key-" + (i % 30), value)));
    }
    for (int i = 0; i < futures.size(); i++) {
      RecordMetadata metadata = futures.get(i).get(60, TimeUnit.SECONDS);
      acked.computeIfAbsent(metadata.partition(), p -> new ArrayList<>()).add(values.get(i));
    }
  }

  private static Map<Integer, List<String>> consumeAll(String topic, int partitions, int expected) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    return consumeAll(props, topic, partitions, expected);
  }

  /**
   * Every record of the topic's partitions, by partition, read with a consumer of {@code props}
   * until {@code expected} arrived; nothing more may follow.
   */
  static Map<Integer, List<String>> consumeAll(
      Properties props, String topic, int partitions, int expected) {
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    Map<Integer, List<String>> seen = new HashMap<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      int[] total = {0};
      await("all records consumed")
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                  seen.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.value());
                  total[0]++;
                }
                return total[0] >= expected;
              });
      // Nothing beyond what was acknowledged shows up later either.
      assertThat(consumer.poll(Duration.ofMillis(500))).isEmpty();
    }
    return seen;
  }

  private static KafkaProducer<String, String> producer() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
    props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
    props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
    return new KafkaProducer<>(props);
  }

  private static int leaderOf(String topic, int partition) throws Exception {
    TopicPartitionInfo info = describe(topic).partitions().get(partition);
    return info.leader().id();
  }

  private static TopicDescription describe(String topic) throws Exception {
    try (Admin admin = admin(cluster.bootstrapServers())) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic);
    }
  }
}
