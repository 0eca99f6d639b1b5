package io.brook.tests.cluster;

import static io.brook.tests.cluster.EmbeddedClusterIT.admin;
import static io.brook.tests.cluster.EmbeddedClusterIT.producer;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.EmbeddedBrookCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Consumer groups on a three-node Raft cluster: {@code __consumer_offsets} is created through the
 * active controller, its partitions are led by different nodes, and every broker names the same
 * coordinator for a group, so a group moves between brokers without losing its offsets.
 */
class ClusterConsumerGroupIT {
  private static final int PARTITIONS = 6;

  private static EmbeddedBrookCluster cluster;

  @BeforeAll
  static void start() {
    // Kafka's default offsets.topic.replication.factor (3): every committed offset is on every
    // node, so a group survives the loss of its coordinator.
    cluster = EmbeddedBrookCluster.builder().nodes(3).start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"classic", "consumer"})
  void aGroupCommitsThroughOneBrokerAndResumesThroughAnother(String protocol) throws Exception {
    // Given a topic with records in every partition
    String topic = "orders-" + protocol;
    String group = "billing-" + protocol;
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 3))).all().get();
    }
    produce(topic, 0, 60);

    // When a member bootstrapped on node 1 reads everything and commits
    try (KafkaConsumer<String, String> consumer = consumer(1, group, protocol)) {
      consumer.subscribe(List.of(topic));
      assertThat(pollUntil(consumer, 60)).hasSize(60);
      consumer.commitSync();
    }

    // Then every broker names the same coordinator and serves the same committed offsets
    Set<Integer> coordinators = new HashSet<>();
    for (int id : cluster.nodeIds()) {
      try (Admin admin = admin(cluster.bootstrapServers(id))) {
        Node coordinator =
            admin.describeConsumerGroups(List.of(group)).all().get().get(group).coordinator();
        coordinators.add(coordinator.id());
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        assertThat(committed).hasSize(PARTITIONS);
        assertThat(committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum())
            .isEqualTo(60);
      }
    }
    assertThat(coordinators).hasSize(1);

    // When more records arrive and a member bootstrapped on node 3 joins the same group
    produce(topic, 60, 30);
    try (KafkaConsumer<String, String> consumer = consumer(3, group, protocol)) {
      consumer.subscribe(List.of(topic));

      // Then it resumes at the committed offsets: only the new records, each once
      List<ConsumerRecord<String, String>> resumed = pollUntil(consumer, 30);
      assertThat(resumed).extracting(ConsumerRecord::value).doesNotHaveDuplicates();
      assertThat(resumed)
          .extracting(r -> Integer.parseInt(r.value()))
          .allMatch(i -> i >= 60 && i < 90);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"classic", "consumer"})
  void aGroupResumesAtItsCommittedOffsetsAfterItsCoordinatorStops(String protocol)
      throws Exception {
    // Given a group that committed its position, and the broker coordinating it
    String topic = "refunds-" + protocol;
    String group = "ledger-" + protocol;
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 3))).all().get();
    }
    produce(topic, 0, 60);
    try (KafkaConsumer<String, String> consumer = consumer(1, group, protocol)) {
      consumer.subscribe(List.of(topic));
      assertThat(pollUntil(consumer, 60)).hasSize(60);
      consumer.commitSync();
    }
    int coordinator;
    try (Admin admin = admin(cluster.bootstrapServers())) {
      coordinator =
          admin.describeConsumerGroups(List.of(group)).all().get().get(group).coordinator().id();
    }
    // and every write of the coordinator (the commit, the member leaving) is on every replica: the
    // member's departure is written after LeaveGroup is answered, so stopping the coordinator at
    // once could lose that uncommitted record, and the new coordinator would wait for the member.
    awaitFullyReplicated(
        new TopicPartition(
            "__consumer_offsets",
            cluster.server(coordinator).groupCoordinator().partitionFor(group)),
        coordinator);

    // When the coordinator's broker stops, and more records arrive
    cluster.stop(coordinator);
    try {
      int survivor = cluster.nodeIds().stream().filter(id -> id != coordinator).findFirst().get();
      produce(topic, 60, 30, survivor);

      // Then a member finds the new coordinator and resumes at the committed offsets
      try (KafkaConsumer<String, String> consumer = consumer(survivor, group, protocol)) {
        consumer.subscribe(List.of(topic));
        List<ConsumerRecord<String, String>> resumed = pollUntil(consumer, 30);
        assertThat(resumed)
            .extracting(r -> Integer.parseInt(r.value()))
            .doesNotHaveDuplicates()
            .hasSize(30)
            .allMatch(i -> i >= 60 && i < 90);
      }
    } finally {
      cluster.restart(coordinator);
    }
  }

  private static void produce(String topic, int from, int count) throws Exception {
    produce(topic, from, count, 2);
  }

  /** Waits until every replica's log ends where the leader's does, at its high watermark. */
  private static void awaitFullyReplicated(TopicPartition tp, int leader) {
    org.awaitility.Awaitility.await("every replica of " + tp + " holds the leader's whole log")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              var leaderLog =
                  cluster.server(leader).replicaManager().partition(tp).orElseThrow().log();
              long end = leaderLog.logEndOffset();
              return leaderLog.highWatermark() == end
                  && cluster.nodeIds().stream()
                      .allMatch(
                          id ->
                              cluster
                                      .server(id)
                                      .replicaManager()
                                      .partition(tp)
                                      .orElseThrow()
                                      .log()
                                      .logEndOffset()
                                  == end);
            });
  }

  private static void produce(String topic, int from, int count, int node) throws Exception {
    try (KafkaProducer<String, String> producer = producer(cluster.bootstrapServers(node))) {
      for (int i = from; i < from + count; i++) {
        producer.send(new ProducerRecord<>(topic, i % PARTITIONS, "k" + i, Integer.toString(i)));
      }
      producer.flush();
    }
  }

  private static KafkaConsumer<String, String> consumer(int node, String group, String protocol) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(node));
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return new KafkaConsumer<>(props);
  }

  /** Polls until {@code count} records arrived (at most 30 s), then a little longer for extras. */
  private static List<ConsumerRecord<String, String>> pollUntil(
      KafkaConsumer<String, String> consumer, int count) {
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (records.size() < count && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(200)).forEach(records::add);
    }
    consumer.poll(Duration.ofMillis(500)).forEach(records::add);
    return records;
  }
}
