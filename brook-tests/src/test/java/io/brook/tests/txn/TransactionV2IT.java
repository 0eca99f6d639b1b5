package io.brook.tests.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.ChildProcess;
import io.brook.tests.RawKafkaClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transaction protocol V2 (KIP-890 part 2) with kafka-clients' own producer: a new cluster
 * finalizes {@code transaction.version} 2, the producer negotiates it from ApiVersions, and every
 * transaction's end bumps the epoch (visible in the stored batches). One broker for the class.
 */
@Timeout(180)
class TransactionV2IT {
  @RegisterExtension
  static final BrookExtension BROOK = new BrookExtension(EmbeddedBrook.builder());

  private static final String TV = "transaction.version";

  private static KafkaProducer<String, String> producer(String transactionalId) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    return new KafkaProducer<>(props);
  }

  private static KafkaConsumer<String, String> consumer(String group) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    if (group != null) {
      props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    }
    return new KafkaConsumer<>(props);
  }

  private static Admin admin() {
    return Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()));
  }

  private static void createTopic(String name) throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get();
    }
  }

  /** Every committed value of partition 0 of {@code topic}, read until its end. */
  private static List<String> readCommitted(String topic) {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = consumer(null)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.currentTimeMillis() + 20_000;
      while (consumer.position(tp) < end && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          values.add(record.value());
        }
      }
    }
    return values;
  }

  /** A stored batch of partition 0 of {@code topic}: its epoch and whether it is a marker. */
  record Stored(short epoch, boolean control) {}

  private static List<Stored> storedBatches(String topic) throws IOException {
    // Lists by name only: a walk would read the attributes of the broker's checkpoint temporary
    // files, which come and go while it runs.
    Path dir = BROOK.brook().dataDir().resolve(topic + "-0");
    List<Path> logs;
    try (Stream<Path> files = Files.list(dir)) {
      logs = files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    List<Stored> batches = new ArrayList<>();
    for (Path log : logs) {
      try (FileRecords records = FileRecords.open(log.toFile(), false)) {
        for (RecordBatch batch : records.batches()) {
          batches.add(new Stored(batch.producerEpoch(), batch.isControlBatch()));
        }
      }
    }
    return batches;
  }

  private static short finalizedLevel() throws Exception {
    try (Admin admin = admin()) {
      FinalizedVersionRange range =
          admin.describeFeatures().featureMetadata().get().finalizedFeatures().get(TV);
      return range == null ? 0 : range.maxVersionLevel();
    }
  }

  private static void setLevel(short level, FeatureUpdate.UpgradeType type) throws Exception {
    try (Admin admin = admin()) {
      admin
          .updateFeatures(Map.of(TV, new FeatureUpdate(level, type)), new UpdateFeaturesOptions())
          .all()
          .get();
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> finalizedLevel() == level);
  }

  @Test
  void everyTransactionEndBumpsTheEpochAndReadCommittedSeesOnlyCommits() throws Exception {
    assertThat(finalizedLevel()).isEqualTo((short) 2);
    createTopic("v2-epochs");
    try (KafkaProducer<String, String> producer = producer("v2-epochs")) {
      producer.initTransactions();
      for (int txn = 0; txn < 4; txn++) {
        producer.beginTransaction();
        producer.send(new ProducerRecord<>("v2-epochs", 0, "k", "txn-" + txn + "-a"));
        producer.send(new ProducerRecord<>("v2-epochs", 0, "k", "txn-" + txn + "-b"));
        producer.flush();
        if (txn == 1) {
          producer.abortTransaction();
        } else {
          producer.commitTransaction();
        }
      }
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(readCommitted("v2-epochs"))
                    .containsExactly(
                        "txn-0-a", "txn-0-b", "txn-2-a", "txn-2-b", "txn-3-a", "txn-3-b"));
    List<Stored> batches = storedBatches("v2-epochs");
    List<Short> dataEpochs = batches.stream().filter(b -> !b.control()).map(Stored::epoch).toList();
    List<Short> markerEpochs = batches.stream().filter(Stored::control).map(Stored::epoch).toList();
    assertThat(markerEpochs).hasSize(4);
    // Each transaction writes with the epoch the previous end gave it; its marker carries the next.
    for (int txn = 0; txn < 4; txn++) {
      short epoch = markerEpochs.get(txn);
      assertThat(epoch).isEqualTo((short) (markerEpochs.get(0) + txn));
      assertThat(dataEpochs).contains((short) (epoch - 1));
    }
    assertThat(dataEpochs).doesNotContain(markerEpochs.get(3));
  }

  @Test
  void aZombieIsFencedByTheNextInstance() throws Exception {
    createTopic("v2-zombie");
    KafkaProducer<String, String> zombie = producer("v2-zombie");
    try {
      zombie.initTransactions();
      zombie.beginTransaction();
      zombie.send(new ProducerRecord<>("v2-zombie", 0, "k", "zombie"));
      zombie.flush();
      try (KafkaProducer<String, String> successor = producer("v2-zombie")) {
        successor.initTransactions(); // aborts the zombie's transaction with a bumped epoch
        successor.beginTransaction();
        successor.send(new ProducerRecord<>("v2-zombie", 0, "k", "successor"));
        successor.commitTransaction();
      }
      assertThatThrownBy(
              () -> {
                zombie.send(new ProducerRecord<>("v2-zombie", 0, "k", "late")).get();
                zombie.commitTransaction();
              })
          .satisfies(TransactionCoordinatorIT::isFencing);
    } finally {
      zombie.close(Duration.ZERO);
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(readCommitted("v2-zombie")).containsExactly("successor"));
  }

  @Test
  void consumeTransformProduceCommitsTheOffsetsWithTheTransaction() throws Exception {
    createTopic("v2-in");
    createTopic("v2-out");
    try (KafkaProducer<String, String> plain = producer("v2-feeder")) {
      plain.initTransactions();
      plain.beginTransaction();
      for (int i = 0; i < 6; i++) {
        plain.send(new ProducerRecord<>("v2-in", 0, "k", "in-" + i));
      }
      plain.commitTransaction();
    }
    TopicPartition in = new TopicPartition("v2-in", 0);
    try (KafkaConsumer<String, String> consumer = consumer("v2-group");
        KafkaProducer<String, String> producer = producer("v2-transformer")) {
      consumer.subscribe(List.of("v2-in"));
      producer.initTransactions();
      int copied = 0;
      long deadline = System.currentTimeMillis() + 30_000;
      while (copied < 6 && System.currentTimeMillis() < deadline) {
        List<ConsumerRecord<String, String>> polled = new ArrayList<>();
        consumer.poll(Duration.ofMillis(200)).forEach(polled::add);
        if (polled.isEmpty()) {
          continue;
        }
        producer.beginTransaction();
        for (ConsumerRecord<String, String> record : polled) {
          producer.send(
              new ProducerRecord<>("v2-out", 0, "k", record.value().replace("in", "out")));
        }
        long next = polled.get(polled.size() - 1).offset() + 1;
        producer.sendOffsetsToTransaction(
            Map.of(in, new OffsetAndMetadata(next)), consumer.groupMetadata());
        producer.commitTransaction();
        copied += polled.size();
      }
      assertThat(copied).isEqualTo(6);
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(readCommitted("v2-out"))
                    .containsExactly("out-0", "out-1", "out-2", "out-3", "out-4", "out-5"));
    try (Admin admin = admin()) {
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(
                          admin
                              .listConsumerGroupOffsets("v2-group")
                              .partitionsToOffsetAndMetadata()
                              .get()
                              .get(in)
                              .offset())
                      .isEqualTo(6L)); // the offset after the last record copied
    }
  }

  @Test
  void kafkaFeaturesMovesTheLevelAndProducersFollowWithoutARestart() throws Exception {
    // Given: a new cluster at transaction.version 2, as kafka-features describes it
    assertThat(features("describe").stdout())
        .containsPattern(
            "Feature: transaction.version\\s+SupportedMinVersion: 0\\s+SupportedMaxVersion: 2"
                + "\\s+FinalizedVersionLevel: 2\\s+Epoch: \\d+");
    createTopic("tv1-clients");
    createTopic("tv2-clients");
    try {
      // When: kafka-features downgrades it to 1
      assertThat(features("downgrade", "--feature", "transaction.version=1").stdout())
          .contains("transaction.version was downgraded to 1.");
      await().atMost(Duration.ofSeconds(20)).until(() -> finalizedLevel() == 1);
      assertThat(features("describe").stdout())
          .containsPattern("Feature: transaction.version\\s+.*FinalizedVersionLevel: 1\\s");

      // Then: as in Kafka 4.x, the level tells clients which protocol to speak and the broker keeps
      // advertising (and serving) the V2 request versions: a client is never refused for them
      ApiVersionsResponseData versions = apiVersions();
      assertThat(versions.finalizedFeatures().find(TV).maxVersionLevel()).isEqualTo((short) 1);
      assertThat(versions.apiKeys().find(ApiKeys.END_TXN.id).maxVersion()).isEqualTo((short) 5);
      assertThat(versions.apiKeys().find(ApiKeys.PRODUCE.id).maxVersion())
          .isGreaterThanOrEqualTo((short) 12);
      // kafka-clients' producer negotiates V1: its epoch stays the same across transactions.
      twoTransactions("tv1-clients", "tv1-producer");
      assertThat(storedBatches("tv1-clients").stream().map(Stored::epoch).distinct()).hasSize(1);
      // A client that speaks V2 anyway (EndTxn v5) gets V2: the epoch bumps, as Kafka answers it.
      try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
        InitProducerIdResponseData init =
            TransactionVerificationIT.initProducerId(raw, "tv1-raw-v2");
        assertThat(
                TransactionVerificationIT.produce(
                    raw,
                    (short) 12,
                    "tv1-raw-v2",
                    init.producerId(),
                    init.producerEpoch(),
                    "tv1-clients",
                    0))
            .isEqualTo(Errors.NONE);
        EndTxnResponseData end =
            TransactionVerificationIT.endTxn(
                raw, "tv1-raw-v2", init.producerId(), init.producerEpoch(), (short) 5);
        assertThat(Errors.forCode(end.errorCode())).isEqualTo(Errors.NONE);
        assertThat(end.producerEpoch()).isEqualTo((short) (init.producerEpoch() + 1));
      }
    } finally {
      // When: kafka-features upgrades it back
      assertThat(features("upgrade", "--feature", "transaction.version=2").stdout())
          .contains("transaction.version was upgraded to 2.");
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> finalizedLevel() == 2);

    // Then: a producer started now negotiates V2 from the same, running broker
    twoTransactions("tv2-clients", "tv2-producer");
    List<Stored> batches = storedBatches("tv2-clients");
    assertThat(batches.stream().map(Stored::epoch).distinct())
        .as("two data epochs, each transaction's marker one above its data")
        .hasSize(3);
  }

  /** Runs {@code kafka-features.sh --bootstrap-server ... ARGS} as a child JVM; it must succeed. */
  private static ChildProcess.Result features(String... args) {
    ChildProcess.Result result =
        ChildProcess.kafkaTool(
            "org.apache.kafka.tools.FeatureCommand",
            BROOK.bootstrapServers(),
            Duration.ofSeconds(60),
            args);
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return result;
  }

  private static ApiVersionsResponseData apiVersions() throws IOException {
    try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      short version = ApiKeys.API_VERSIONS.latestVersion();
      return new ApiVersionsResponseData(
          new ByteBufferAccessor(
              raw.send(
                  new ApiVersionsRequestData()
                      .setClientSoftwareName("brook-tests")
                      .setClientSoftwareVersion("1"),
                  version)),
          version);
    }
  }

  /** A new kafka-clients transactional producer commits two transactions to partition 0. */
  private static void twoTransactions(String topic, String transactionalId) {
    try (KafkaProducer<String, String> producer = producer(transactionalId)) {
      producer.initTransactions();
      for (int txn = 0; txn < 2; txn++) {
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, 0, "k", transactionalId + "-" + txn));
        producer.commitTransaction();
      }
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(readCommitted(topic))
                    .contains(transactionalId + "-0", transactionalId + "-1"));
  }

  @Test
  void aV1ClientWorksOnceTheFeatureIsDowngradedAndV2ComesBack() throws Exception {
    createTopic("v2-downgrade");
    setLevel((short) 0, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE);
    try {
      try (KafkaProducer<String, String> producer = producer("v2-downgrade")) {
        producer.initTransactions();
        for (int txn = 0; txn < 2; txn++) {
          producer.beginTransaction();
          producer.send(new ProducerRecord<>("v2-downgrade", 0, "k", "v1-" + txn));
          producer.commitTransaction();
        }
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> assertThat(readCommitted("v2-downgrade")).containsExactly("v1-0", "v1-1"));
      // V1: InitProducerId set the epoch and every transaction kept it, markers included.
      assertThat(storedBatches("v2-downgrade").stream().map(Stored::epoch).distinct()).hasSize(1);
    } finally {
      setLevel((short) 2, FeatureUpdate.UpgradeType.UPGRADE);
    }
    assertThat(finalizedLevel()).isEqualTo((short) 2);
  }
}
