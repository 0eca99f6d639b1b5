package io.brook.tests.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.ChildProcess;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Real transactional kafka-clients producers and Kafka's kafka-transactions tool on one broker. */
@Timeout(180)
class TransactionCoordinatorIT {
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("transaction.abort.timed.out.transaction.cleanup.interval.ms", "500"));

  private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(60);

  private static KafkaProducer<String, String> producer(String transactionalId, String... extra) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    for (int i = 0; i < extra.length; i += 2) {
      props.put(extra[i], extra[i + 1]);
    }
    return new KafkaProducer<>(props);
  }

  private static Admin admin() {
    return Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()));
  }

  private static void createTopic(String name) throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(name, 2, (short) 1))).all().get();
    }
  }

  private static TransactionDescription describe(String transactionalId) throws Exception {
    try (Admin admin = admin()) {
      return admin
          .describeTransactions(List.of(transactionalId))
          .description(transactionalId)
          .get();
    }
  }

  /** Every record of {@code topic} up to its end, with the given isolation level. */
  private static List<String> readAll(String topic, String isolation) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> tps =
          List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
      long deadline = System.currentTimeMillis() + 20_000;
      while (System.currentTimeMillis() < deadline
          && tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          values.add(record.value());
        }
      }
    }
    return values;
  }

  @Test
  void committedAndAbortedTransactionsComplete() throws Exception {
    createTopic("txn-basic");
    try (KafkaProducer<String, String> producer = producer("basic")) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < 3; i++) {
        producer.send(new ProducerRecord<>("txn-basic", "k" + i, "committed-" + i));
      }
      producer.commitTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>("txn-basic", "k", "aborted-0"));
      producer.send(new ProducerRecord<>("txn-basic", "k", "aborted-1"));
      // Sent, so the partition is in the transaction: a client aborting before that sends no
      // EndTxn at all.
      producer.flush();
      producer.abortTransaction();
    }

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> assertThat(describe("basic").state()).isEqualTo(TransactionState.COMPLETE_ABORT));
    TransactionDescription description = describe("basic");
    // Transaction protocol V2 (a new cluster's default): each of the two EndTxn bumped the epoch.
    assertThat(description.producerEpoch()).isEqualTo((short) 2);
    assertThat(description.topicPartitions()).isEmpty();
    try (Admin admin = admin()) {
      Collection<TransactionListing> listings = admin.listTransactions().all().get();
      assertThat(listings).extracting(TransactionListing::transactionalId).contains("basic");
    }
    assertThat(readAll("txn-basic", "read_committed"))
        .containsExactlyInAnyOrder("committed-0", "committed-1", "committed-2");
    assertThat(readAll("txn-basic", "read_uncommitted")).hasSize(5);
  }

  @Test
  void aSecondInstanceFencesTheFirst() throws Exception {
    createTopic("txn-fence");
    try (KafkaProducer<String, String> first = producer("fenced");
        KafkaProducer<String, String> second = producer("fenced")) {
      first.initTransactions();
      first.beginTransaction();
      first.send(new ProducerRecord<>("txn-fence", "k", "zombie")).get();

      // The second instance aborts the first one's transaction and takes over with a new epoch.
      second.initTransactions();
      assertThat(describe("fenced").producerEpoch()).isGreaterThanOrEqualTo((short) 2);

      assertThatThrownBy(
              () -> {
                first.send(new ProducerRecord<>("txn-fence", "k", "late")).get();
                first.commitTransaction();
              })
          .satisfies(TransactionCoordinatorIT::isFencing);

      second.beginTransaction();
      second.send(new ProducerRecord<>("txn-fence", "k", "winner"));
      second.commitTransaction();
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(describe("fenced").state()).isEqualTo(TransactionState.COMPLETE_COMMIT));
    assertThat(readAll("txn-fence", "read_committed")).containsExactly("winner");
  }

  @Test
  void anOpenTransactionIsAbortedAfterItsTimeout() throws Exception {
    createTopic("txn-timeout");
    try (KafkaProducer<String, String> producer =
        producer("slow", ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "2000")) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>("txn-timeout", "k", "never")).get();
      assertThat(describe("slow").state()).isEqualTo(TransactionState.ONGOING);

      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(describe("slow").state()).isEqualTo(TransactionState.COMPLETE_ABORT));
      // The coordinator bumped the epoch when it aborted. A V2 producer's commit comes from the
      // epoch before that bump, which the coordinator takes for a retry of an EndTxn whose
      // transaction ended the other way: INVALID_TXN_STATE, as Kafka answers.
      assertThat(describe("slow").producerEpoch()).isEqualTo((short) 1);
      assertThatThrownBy(producer::commitTransaction).isInstanceOf(InvalidTxnStateException.class);
    }
    assertThat(readAll("txn-timeout", "read_committed")).isEmpty();
  }

  @Test
  void aHungTransactionHoldsBackTheLastStableOffsetUntilItTimesOut() throws Exception {
    createTopic("txn-hung");
    TopicPartition partition = new TopicPartition("txn-hung", 0);
    try (KafkaProducer<String, String> hung =
            producer("hung", ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "3000");
        KafkaProducer<String, String> quick = producer("quick");
        Admin admin = admin()) {
      hung.initTransactions();
      hung.beginTransaction();
      hung.send(new ProducerRecord<>("txn-hung", 0, "k", "hung")).get();
      quick.initTransactions();
      quick.beginTransaction();
      quick.send(new ProducerRecord<>("txn-hung", 0, "k", "after")).get();
      quick.commitTransaction();

      // Visible while it lasts: the LSO stays at the hung transaction's first offset, the
      // producer shows it as its open transaction, and the broker's gauge shows the lag.
      await("the quick transaction's marker written")
          .atMost(Duration.ofSeconds(10))
          .until(() -> latestOffset(admin, partition, IsolationLevel.READ_UNCOMMITTED) == 3);
      assertThat(latestOffset(admin, partition, IsolationLevel.READ_COMMITTED)).isZero();
      assertThat(
              admin
                  .describeProducers(List.of(partition))
                  .partitionResult(partition)
                  .get()
                  .activeProducers())
          .anySatisfy(p -> assertThat(p.currentTransactionStartOffset()).hasValue(0L));
      assertThat(maxLastStableOffsetLag()).isGreaterThanOrEqualTo(3L);
      assertThat(readAll("txn-hung", "read_committed")).isEmpty();

      // After transaction.timeout.ms the coordinator aborts it and the LSO moves on.
      await("the hung transaction aborted and the LSO past it")
          .atMost(Duration.ofSeconds(20))
          .until(() -> latestOffset(admin, partition, IsolationLevel.READ_COMMITTED) == 4);
      assertThat(readAll("txn-hung", "read_committed")).containsExactly("after");
      assertThat(readAll("txn-hung", "read_uncommitted")).containsExactly("hung", "after");
    }
  }

  static long latestOffset(Admin admin, TopicPartition partition, IsolationLevel isolation)
      throws Exception {
    return admin
        .listOffsets(Map.of(partition, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
        .partitionResult(partition)
        .get()
        .offset();
  }

  private static long maxLastStableOffsetLag() throws Exception {
    Object value =
        ManagementFactory.getPlatformMBeanServer()
            .getAttribute(
                new ObjectName("kafka.server:type=ReplicaManager,name=MaxLastStableOffsetLag"),
                "Value");
    return ((Number) value).longValue();
  }

  @Test
  void aSingleNodeWithKafkasDefaultsRunsTransactions() throws Exception {
    // Replication factor 3 is capped to the one broker, and min.insync.replicas 2 with it.
    try (EmbeddedBrook alone =
            EmbeddedBrook.builder()
                .config("transaction.state.log.replication.factor", "3")
                .config("transaction.state.log.min.isr", "2")
                .start();
        KafkaProducer<String, String> producer =
            new KafkaProducer<>(
                Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, alone.bootstrapServers(),
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG, "defaults",
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"),
                new StringSerializer(),
                new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>("defaults-topic", "k", "v")).get();
      producer.commitTransaction();
    }
  }

  @Test
  void initProducerIdRejectsATimeoutAboveTheMaximum() {
    try (KafkaProducer<String, String> producer =
        producer("too-long", ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "900001")) {
      assertThatThrownBy(producer::initTransactions).hasMessageContaining("transaction timeout");
    }
  }

  @Test
  void kafkaTransactionsToolListsAndDescribes() throws Exception {
    createTopic("txn-tool");
    try (KafkaProducer<String, String> producer = producer("tool-txn")) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>("txn-tool", "k", "v")).get();

      ChildProcess.Result list = tool("list");
      ChildProcess.Result describe = tool("describe", "--transactional-id", "tool-txn");

      assertThat(list.stdout()).contains("tool-txn").contains("Ongoing");
      assertThat(describe.stdout()).contains("tool-txn").contains("Ongoing").contains("txn-tool");
      producer.abortTransaction();
    }
  }

  private static ChildProcess.Result tool(String... args) {
    ChildProcess.Result result =
        ChildProcess.kafkaTool(
            "org.apache.kafka.tools.TransactionsCommand",
            BROOK.bootstrapServers(),
            TOOL_TIMEOUT,
            args);
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return result;
  }

  /** The client's ways of saying this producer instance was fenced. */
  static void isFencing(Throwable thrown) {
    Throwable cause = thrown;
    while (cause != null) {
      if (cause instanceof ProducerFencedException
          || cause instanceof InvalidProducerEpochException) {
        return;
      }
      cause = cause.getCause();
    }
    assertThat(thrown).isInstanceOf(KafkaException.class).hasMessageContaining("fenced");
  }
}
