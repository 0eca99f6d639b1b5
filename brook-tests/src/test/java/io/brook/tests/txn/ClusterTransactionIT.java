package io.brook.tests.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrookCluster;
import io.brook.tests.RawKafkaClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transactions on a three-node cluster: markers go to partition leaders on other brokers, and when
 * the coordinator's node stops another broker loads {@code __transaction_state} (replicated three
 * times) and takes over the transactional id, aborting the transaction it left open. Leaders verify
 * transactional writes with a coordinator on another broker.
 */
@Timeout(240)
class ClusterTransactionIT {
  private static final String TOPIC = "ledger";
  private static final int PARTITIONS = 6;
  private static final String ID = "cluster-txn";

  private static EmbeddedBrookCluster cluster;

  @BeforeAll
  static void start() {
    cluster = EmbeddedBrookCluster.builder().nodes(3).start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aTransactionalIdSurvivesTheLossOfItsCoordinator() throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 3))).all().get();
    }
    try (KafkaProducer<String, String> producer = producer()) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < 60; i++) {
        producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "k", "first-" + i));
      }
      producer.commitTransaction();
    }
    // commitTransaction returns once the commit is decided; the markers follow.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(readCommitted()).hasSize(60));

    KafkaProducer<String, String> zombie = producer();
    zombie.initTransactions();
    zombie.beginTransaction();
    for (int i = 0; i < PARTITIONS; i++) {
      zombie.send(new ProducerRecord<>(TOPIC, i, "k", "left-open-" + i));
    }
    zombie.flush();
    TransactionDescription open = describe();
    assertThat(open.state()).isEqualTo(TransactionState.ONGOING);

    cluster.stop(open.coordinatorId());
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> assertThat(describe().coordinatorId()).isNotEqualTo(open.coordinatorId()));

      try (KafkaProducer<String, String> successor = producer()) {
        successor.initTransactions();
        successor.beginTransaction();
        successor.send(new ProducerRecord<>(TOPIC, 0, "k", "second"));
        successor.commitTransaction();
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(describe().state()).isEqualTo(TransactionState.COMPLETE_COMMIT));
      assertThat(describe().producerEpoch()).isGreaterThan(open.producerEpoch());
      List<String> committed = readCommitted();
      assertThat(committed).hasSize(61).contains("second");
      assertThat(committed).noneMatch(v -> v.startsWith("left-open"));
    } finally {
      zombie.close(Duration.ZERO);
      cluster.restart(open.coordinatorId());
    }
  }

  @Test
  void aLeaderAsksTheCoordinatorOnAnotherBrokerAndRefusesAPartitionNotInTheTransaction()
      throws Exception {
    // Given: an open transaction holding one partition, and a partition led by another broker than
    // the transactional id's coordinator
    String topic = "verified";
    String id = "cluster-verify";
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 3))).all().get();
    }
    try (KafkaProducer<String, String> producer = producer(id);
        Admin admin = admin()) {
      producer.initTransactions();
      producer.beginTransaction();
      int coordinator = describe(id).coordinatorId();
      Map<Integer, Integer> leaders = new HashMap<>();
      admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get()
          .get(topic)
          .partitions()
          .forEach(p -> leaders.put(p.partition(), p.leader().id()));
      int notAdded =
          leaders.entrySet().stream()
              .filter(e -> e.getValue() != coordinator)
              .findFirst()
              .orElseThrow()
              .getKey();
      int added = (notAdded + 1) % PARTITIONS;
      producer.send(new ProducerRecord<>(topic, added, "k", "in-txn")).get();
      TransactionDescription open = describe(id);

      // When: the producer's id and epoch write to the other partition at its leader
      String[] leader = cluster.bootstrapServers(leaders.get(notAdded)).split(":");
      Errors answer;
      try (RawKafkaClient raw = new RawKafkaClient(leader[0], Integer.parseInt(leader[1]))) {
        answer =
            TransactionVerificationIT.produce(
                raw,
                (short) 11,
                id,
                open.producerId(),
                (short) open.producerEpoch(),
                topic,
                notAdded);
      }

      // Then: the leader asked the coordinator over the network, and stored nothing
      assertThat(answer).isEqualTo(Errors.TRANSACTION_ABORTABLE);
      TopicPartition refused = new TopicPartition(topic, notAdded);
      assertThat(
              TransactionCoordinatorIT.latestOffset(
                  admin, refused, IsolationLevel.READ_UNCOMMITTED))
          .isZero();
      producer.commitTransaction();
    }
  }

  private static TransactionDescription describe() throws Exception {
    return describe(ID);
  }

  private static TransactionDescription describe(String transactionalId) throws Exception {
    try (Admin admin = admin()) {
      return admin
          .describeTransactions(List.of(transactionalId))
          .description(transactionalId)
          .get();
    }
  }

  private static Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            cluster.bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            "10000",
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            "20000"));
  }

  private static KafkaProducer<String, String> producer() {
    return producer(ID);
  }

  private static KafkaProducer<String, String> producer(String transactionalId) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
    return new KafkaProducer<>(props);
  }

  private static List<String> readCommitted() {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        tps.add(new TopicPartition(TOPIC, p));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
      long deadline = System.currentTimeMillis() + 30_000;
      while (System.currentTimeMillis() < deadline
          && tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          values.add(record.value());
        }
      }
    }
    return values;
  }
}
