package io.brook.tests.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.tests.RawKafkaClient;
import io.brook.tests.TestClients;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Server-side transaction verification (KIP-890): the leader appends a transactional batch that
 * would open a transaction only once the coordinator confirmed its partition is in the transaction.
 * Raw produce requests carry exactly the producer id, epoch and partition a buggy or hostile client
 * could send.
 */
@Timeout(180)
class TransactionVerificationIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  @Test
  void aProduceToAPartitionNotInTheTransactionIsRefusedAndNotStored() throws Exception {
    // Given: a real producer's open transaction, which holds partition 0 only
    String topic = "verify-refused";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 2);
    try (KafkaProducer<String, String> producer = producer("verify-refused");
        Admin admin = admin();
        RawKafkaClient raw = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 0, "k", "in-txn")).get();
      TransactionDescription txn =
          admin.describeTransactions(List.of("verify-refused")).description("verify-refused").get();
      assertThat(txn.topicPartitions()).containsExactly(new TopicPartition(topic, 0));

      // When: the same producer id and epoch write to partition 1, which was never added
      short epoch = (short) txn.producerEpoch();
      Errors current =
          produce(raw, (short) 11, "verify-refused", txn.producerId(), epoch, topic, 1);
      Errors old = produce(raw, (short) 10, "verify-refused", txn.producerId(), epoch, topic, 1);

      // Then: Kafka's answers (TRANSACTION_ABORTABLE from Produce v11, INVALID_TXN_STATE before),
      // nothing stored, and the real transaction still commits
      assertThat(current).isEqualTo(Errors.TRANSACTION_ABORTABLE);
      assertThat(old).isEqualTo(Errors.INVALID_TXN_STATE);
      TopicPartition notAdded = new TopicPartition(topic, 1);
      assertThat(
              TransactionCoordinatorIT.latestOffset(
                  admin, notAdded, IsolationLevel.READ_UNCOMMITTED))
          .isZero();
      producer.commitTransaction();
      assertThat(readCommitted(topic, 2, 1)).containsExactly("in-txn");
    }
  }

  @Test
  void aProduceToAnAddedPartitionIsVerifiedAndCommits() throws Exception {
    // Given: a raw transactional producer that added partition 1 but has not written there yet
    String topic = "verify-added";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 2);
    try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      InitProducerIdResponseData init = initProducerId(raw, "verify-added");
      long producerId = init.producerId();
      short epoch = init.producerEpoch();
      addPartition(raw, "verify-added", producerId, epoch, topic, 1);

      // When
      Errors produced = produce(raw, (short) 11, "verify-added", producerId, epoch, topic, 1);
      EndTxnResponseData end = endTxn(raw, "verify-added", producerId, epoch, (short) 4);

      // Then
      assertThat(produced).isEqualTo(Errors.NONE);
      assertThat(Errors.forCode(end.errorCode())).isEqualTo(Errors.NONE);
      assertThat(readCommitted(topic, 2, 1)).containsExactly("raw");
    }
  }

  @Test
  void produceVersion12AddsThePartitionToTheTransaction() throws Exception {
    // Given: a raw transactional producer that added no partition (transaction protocol V2 leaves
    // that to the brokers: Produce v12 asks the coordinator to add, not to verify)
    String topic = "verify-implicit";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", BROOK.brook().port());
        Admin admin = admin()) {
      InitProducerIdResponseData init = initProducerId(raw, "verify-implicit");

      // When
      Errors produced =
          produce(
              raw,
              (short) 12,
              "verify-implicit",
              init.producerId(),
              init.producerEpoch(),
              topic,
              0);

      // Then: stored, and part of the transaction
      assertThat(produced).isEqualTo(Errors.NONE);
      TransactionDescription txn =
          admin
              .describeTransactions(List.of("verify-implicit"))
              .description("verify-implicit")
              .get();
      assertThat(txn.topicPartitions()).containsExactly(new TopicPartition(topic, 0));
    }
  }

  @Test
  void aV2MarkerNeedsTheBumpedEpochAndALateBatchOfTheEndedTransactionIsFenced() throws Exception {
    // Given: a V2 transaction (Produce v12 added the partition) with one stored batch
    String topic = "verify-v2-end";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", BROOK.brook().port());
        Admin admin = admin()) {
      InitProducerIdResponseData init = initProducerId(raw, "verify-v2-end");
      long producerId = init.producerId();
      short epoch = init.producerEpoch();
      assertThat(produce(raw, (short) 12, "verify-v2-end", producerId, epoch, topic, 0))
          .isEqualTo(Errors.NONE);
      TopicPartition tp = new TopicPartition(topic, 0);

      // When: a V2 marker comes with the transaction's own epoch (a coordinator must bump it)
      Errors unbumped = raw.writeTxnMarker(topic, producerId, epoch, true, 0, (byte) 2, (short) 2);

      // Then: refused, nothing written, and the transaction is still open
      assertThat(unbumped).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
      assertThat(TransactionCoordinatorIT.latestOffset(admin, tp, IsolationLevel.READ_UNCOMMITTED))
          .isEqualTo(1);

      // When: the real end of the transaction (EndTxn v5 bumps the epoch, the marker carries it)
      EndTxnResponseData end = endTxn(raw, "verify-v2-end", producerId, epoch, (short) 5);
      assertThat(Errors.forCode(end.errorCode())).isEqualTo(Errors.NONE);
      assertThat(end.producerEpoch()).isEqualTo((short) (epoch + 1));
      assertThat(readCommitted(topic, 1, 1)).containsExactly("raw");

      // Then: a produce of the ended transaction arriving late is fenced and stores nothing
      long end0 = TransactionCoordinatorIT.latestOffset(admin, tp, IsolationLevel.READ_UNCOMMITTED);
      assertThat(produce(raw, (short) 12, "verify-v2-end", producerId, epoch, topic, 0))
          .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
      assertThat(TransactionCoordinatorIT.latestOffset(admin, tp, IsolationLevel.READ_UNCOMMITTED))
          .isEqualTo(end0);
    }
  }

  @Test
  void aTransactionalProduceWithoutTransactionalIdIsRefused() throws Exception {
    // Given: an idempotent producer id, which no coordinator knows
    String topic = "verify-no-id";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", BROOK.brook().port());
        Admin admin = admin()) {
      InitProducerIdResponseData init = initProducerId(raw, null);

      // When: it writes a transactional batch, claiming no transactional id
      Errors produced =
          produce(raw, (short) 11, null, init.producerId(), init.producerEpoch(), topic, 0);

      // Then: it would open a transaction no coordinator can end
      assertThat(produced).isEqualTo(Errors.INVALID_TXN_STATE);
      assertThat(
              TransactionCoordinatorIT.latestOffset(
                  admin, new TopicPartition(topic, 0), IsolationLevel.READ_UNCOMMITTED))
          .isZero();
    }
  }

  private static KafkaProducer<String, String> producer(String transactionalId) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    return new KafkaProducer<>(props);
  }

  private static Admin admin() {
    return Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()));
  }

  /** One transactional batch of one record ("raw") at sequence 0, as Produce {@code version}. */
  static Errors produce(
      RawKafkaClient raw,
      short version,
      String transactionalId,
      long producerId,
      short epoch,
      String topic,
      int partition)
      throws Exception {
    MemoryRecords batch =
        MemoryRecords.withTransactionalRecords(
            Compression.NONE,
            producerId,
            epoch,
            0,
            new SimpleRecord("raw".getBytes(StandardCharsets.UTF_8)));
    ProduceRequestData request =
        new ProduceRequestData()
            .setAcks((short) -1)
            .setTimeoutMs(30_000)
            .setTransactionalId(transactionalId);
    ProduceRequestData.TopicProduceData topicData =
        new ProduceRequestData.TopicProduceData().setName(topic);
    topicData
        .partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(batch));
    request.topicData().add(topicData);
    ProduceResponseData response =
        new ProduceResponseData(new ByteBufferAccessor(raw.send(request, version)), version);
    return Errors.forCode(
        response.responses().iterator().next().partitionResponses().get(0).errorCode());
  }

  /** A raw EndTxn committing the transaction, as EndTxn {@code version}. */
  static EndTxnResponseData endTxn(
      RawKafkaClient raw, String transactionalId, long producerId, short epoch, short version)
      throws Exception {
    EndTxnRequestData request =
        new EndTxnRequestData()
            .setTransactionalId(transactionalId)
            .setProducerId(producerId)
            .setProducerEpoch(epoch)
            .setCommitted(true);
    return new EndTxnResponseData(new ByteBufferAccessor(raw.send(request, version)), version);
  }

  /** InitProducerId, retried while the transaction coordinator is being created. */
  static InitProducerIdResponseData initProducerId(RawKafkaClient raw, String transactionalId)
      throws Exception {
    if (transactionalId != null) {
      raw.send(
          new FindCoordinatorRequestData()
              .setKeyType(CoordinatorType.TRANSACTION.id())
              .setCoordinatorKeys(List.of(transactionalId)),
          (short) 4);
    }
    InitProducerIdResponseData[] init = new InitProducerIdResponseData[1];
    await("InitProducerId")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              ByteBuffer body =
                  raw.send(
                      new InitProducerIdRequestData()
                          .setTransactionalId(transactionalId)
                          .setTransactionTimeoutMs(60_000)
                          .setProducerId(-1)
                          .setProducerEpoch((short) -1),
                      (short) 4);
              init[0] = new InitProducerIdResponseData(new ByteBufferAccessor(body), (short) 4);
              return init[0].errorCode() == Errors.NONE.code();
            });
    return init[0];
  }

  private static void addPartition(
      RawKafkaClient raw, String transactionalId, long producerId, short epoch, String topic, int p)
      throws Exception {
    AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
    topics.add(new AddPartitionsToTxnTopic().setName(topic).setPartitions(List.of(p)));
    ByteBuffer body =
        raw.send(
            new AddPartitionsToTxnRequestData()
                .setV3AndBelowTransactionalId(transactionalId)
                .setV3AndBelowProducerId(producerId)
                .setV3AndBelowProducerEpoch(epoch)
                .setV3AndBelowTopics(topics),
            (short) 3);
    AddPartitionsToTxnResponseData response =
        new AddPartitionsToTxnResponseData(new ByteBufferAccessor(body), (short) 3);
    response
        .resultsByTopicV3AndBelow()
        .forEach(
            t ->
                t.resultsByPartition()
                    .forEach(
                        r ->
                            assertThat(Errors.forCode(r.partitionErrorCode()))
                                .isEqualTo(Errors.NONE)));
  }

  /**
   * The committed records of {@code topic}'s partitions up to their ends, once at least {@code
   * expected} are visible (the markers are written after the commit is answered).
   */
  private static List<String> readCommitted(String topic, int partitions, int expected) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      await("the committed records")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                  values.add(r.value());
                }
                Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
                return values.size() >= expected
                    && tps.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
              });
    }
    return values;
  }
}
