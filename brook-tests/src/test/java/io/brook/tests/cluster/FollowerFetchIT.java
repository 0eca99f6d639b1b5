package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
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
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-392 fetch from the closest replica, across three combined nodes in racks r1, r2 and r3 with
 * Kafka's {@code RackAwareReplicaSelector}: a consumer whose {@code client.rack} is a follower's
 * rack reads the partition from that follower, all of it, in order, and never past what is
 * committed.
 *
 * <p>How the test knows which broker served the records: the consumer's own network metrics count
 * the bytes it received per broker ({@code consumer-node-metrics}, {@code incoming-byte-total}, tag
 * {@code node-id=node-<id>}). The records weigh far more than every other response together
 * (metadata, the leader's first answer naming the preferred read replica), so the broker that sent
 * at least their size is the one that served them. A control consumer without {@code client.rack}
 * shows the same measure pointing at the leader. If follower fetching were broken (the leader not
 * naming the follower, the client not following, or the follower refusing consumer fetches), the
 * follower's count would stay near zero and the test fails.
 *
 * <p>"Never past what is committed": with the third replica paused (SIGSTOP) it stays in the ISR
 * for {@code replica.lag.time.max.ms} (30 s), so the high watermark cannot move while the nearby
 * follower already holds new acks=all records in its log. The consumer must see none of them while
 * none is acknowledged, and all of them once the paused replica resumes and the producer hears
 * back. A follower that served reads up to its log end rather than its high watermark fails here.
 */
class FollowerFetchIT {
  private static final String TOPIC = "nearby";
  private static final int RECORDS = 200;
  private static final int LATE_RECORDS = 20;
  private static final int VALUE_SIZE = 1_000;
  private static final long PAYLOAD_BYTES = (long) RECORDS * VALUE_SIZE;

  @TempDir static Path dir;
  private static ClusterHarness cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        ClusterHarness.start(
            dir,
            3,
            Map.of(
                "replica.selector.class",
                "org.apache.kafka.common.replica.RackAwareReplicaSelector",
                "replica.lag.time.max.ms",
                "30000"),
            id -> Map.of("broker.rack", rack(id)));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String rack(int brokerId) {
    return "r" + brokerId;
  }

  @Test
  void consumerInAFollowersRackReadsFromThatFollower() throws Exception {
    // Given a partition on all three brokers, and N records acknowledged by all of them
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(TOPIC, 1, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    await("the ISR holds all three replicas")
        .atMost(Duration.ofSeconds(30))
        .until(() -> describe().partitions().get(0).isr().size() == 3);
    int leader = describe().partitions().get(0).leader().id();
    int nearby = leader % 3 + 1;
    int other = nearby % 3 + 1;
    assertThat(List.of(leader, nearby, other)).doesNotHaveDuplicates();

    List<String> acked = new ArrayList<>();
    Random random = new Random(42);
    try (KafkaProducer<String, String> producer = producer()) {
      List<Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < RECORDS; i++) {
        String value = value(i, random);
        acked.add(value);
        sends.add(producer.send(new ProducerRecord<>(TOPIC, value)));
      }
      for (Future<RecordMetadata> send : sends) {
        send.get(60, TimeUnit.SECONDS);
      }

      try (KafkaConsumer<String, String> consumer = consumer(rack(nearby))) {
        // When a consumer in the nearby follower's rack reads the partition
        List<String> consumed = consume(consumer, RECORDS);

        // Then it gets every record in order, and the bytes came from the follower
        assertThat(consumed).as("records in order, exactly once").isEqualTo(acked);
        System.out.printf(
            "client.rack=%s: %.0f bytes from follower %d, %.0f from leader %d%n",
            rack(nearby), bytesFrom(consumer, nearby), nearby, bytesFrom(consumer, leader), leader);
        assertThat(bytesFrom(consumer, nearby))
            .as("bytes the consumer received from follower %d (rack %s)", nearby, rack(nearby))
            .isGreaterThanOrEqualTo((double) PAYLOAD_BYTES);
        assertThat(bytesFrom(consumer, leader))
            .as("bytes the consumer received from leader %d", leader)
            .isLessThan(PAYLOAD_BYTES / 10.0);

        // When the third replica stops, so the high watermark cannot move, and more records are
        // written (the nearby follower fetches them into its log)
        cluster.node(other).pause();
        List<String> late = new ArrayList<>();
        List<Future<RecordMetadata>> lateSends = new ArrayList<>();
        try {
          for (int i = RECORDS; i < RECORDS + LATE_RECORDS; i++) {
            String value = value(i, random);
            late.add(value);
            lateSends.add(producer.send(new ProducerRecord<>(TOPIC, value)));
          }
          // Then the consumer sees nothing beyond what was acknowledged, which is nothing new
          // (the sends leave within milliseconds, linger.ms=5; the follower fetches them into its
          // log well within the three seconds)
          long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
          while (System.nanoTime() < until) {
            assertThat(consumer.poll(Duration.ofMillis(200)))
                .as("offsets read from follower %d while none is acknowledged", nearby)
                .extracting(ConsumerRecord::offset)
                .isEmpty();
          }
          assertThat(lateSends)
              .as("acks=all writes while a replica is paused")
              .noneMatch(Future::isDone);
        } finally {
          cluster.node(other).resume();
        }

        // And once the replica is back, the writes are acknowledged and the consumer reads them
        for (Future<RecordMetadata> send : lateSends) {
          send.get(60, TimeUnit.SECONDS);
        }
        acked.addAll(late);
        assertThat(consume(consumer, LATE_RECORDS))
            .as("the late records, in order")
            .isEqualTo(late);
        assertThat(consumer.poll(Duration.ofMillis(500))).as("nothing beyond them").isEmpty();
      }
    }

    // Control: without client.rack the same measure points at the leader.
    try (KafkaConsumer<String, String> consumer = consumer(null)) {
      assertThat(consume(consumer, acked.size())).isEqualTo(acked);
      assertThat(bytesFrom(consumer, leader)).isGreaterThanOrEqualTo((double) PAYLOAD_BYTES);
      assertThat(bytesFrom(consumer, nearby)).isLessThan(PAYLOAD_BYTES / 10.0);
    }
  }

  /** A value of {@link #VALUE_SIZE} characters, random so that nothing compresses it away. */
  private static String value(int index, Random random) {
    StringBuilder value = new StringBuilder("record-" + index + "-");
    while (value.length() < VALUE_SIZE) {
      value.append((char) ('a' + random.nextInt(26)));
    }
    return value.toString();
  }

  private static List<String> consume(KafkaConsumer<String, String> consumer, int count) {
    List<String> seen = new ArrayList<>();
    await("consumed " + count + " records")
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                seen.add(r.value());
              }
              return seen.size() >= count;
            });
    return seen;
  }

  /** Bytes the consumer received from one broker, by its network metrics (0 if never talked). */
  private static double bytesFrom(KafkaConsumer<String, String> consumer, int brokerId) {
    for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
      MetricName name = e.getKey();
      if (name.group().equals("consumer-node-metrics")
          && name.name().equals("incoming-byte-total")
          && ("node-" + brokerId).equals(name.tags().get("node-id"))) {
        return ((Number) e.getValue().metricValue()).doubleValue();
      }
    }
    return 0;
  }

  private static KafkaConsumer<String, String> consumer(String clientRack) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    if (clientRack != null) {
      props.put(ConsumerConfig.CLIENT_RACK_CONFIG, clientRack);
    }
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    consumer.assign(List.of(tp));
    consumer.seekToBeginning(List.of(tp));
    return consumer;
  }

  private static KafkaProducer<String, String> producer() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    // Long enough that acks=all writes wait out the paused replica instead of being retried.
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "60000");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
    return new KafkaProducer<>(props);
  }

  private static TopicDescription describe() throws Exception {
    try (Admin admin = admin(cluster.bootstrapServers())) {
      return admin
          .describeTopics(List.of(TOPIC))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(TOPIC);
    }
  }
}
