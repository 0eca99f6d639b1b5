package io.brook.tests.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.RawKafkaClient;
import io.brook.tests.TestClients;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients cannot write the coordinators' topics ({@code __consumer_offsets}, {@code
 * __transaction_state}): Produce answers INVALID_TOPIC_EXCEPTION, as Kafka does, unless the client
 * id is Kafka's admin client id. Whatever does get into {@code __consumer_offsets} (here garbage
 * written with the admin client id) is skipped when the group coordinator loads after a restart,
 * and the groups keep working.
 */
class InternalTopicWritesIT {
  private static final String TOPIC = "orders";
  private static final String OFFSETS = "__consumer_offsets";
  private static final String TXN_STATE = "__transaction_state";
  private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

  @TempDir Path dataDir;
  private EmbeddedBrook brook;

  @BeforeEach
  void start() throws Exception {
    brook =
        EmbeddedBrook.builder()
            .dataDir(dataDir)
            .config("offsets.topic.num.partitions", "1")
            .config("transaction.state.log.num.partitions", "1")
            .start();
    TestClients.createTopic(brook.bootstrapServers(), TOPIC, 2);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (int i = 0; i < 20; i++) {
        producer.send(new ProducerRecord<>(TOPIC, i % 2, null, ("v" + i).getBytes()));
      }
      producer.flush();
    }
    // Both internal topics exist from here: a commit creates the one, a transactional producer
    // the other.
    commit("billing", P0, 5);
    try (KafkaProducer<byte[], byte[]> txn =
        TestClients.producer(brook.bootstrapServers(), "transactional.id", "setup")) {
      txn.initTransactions();
    }
  }

  @AfterEach
  void stop() {
    brook.close();
  }

  private KafkaConsumer<byte[], byte[]> consumer(String group) {
    return TestClients.consumer(
        brook.bootstrapServers(), "group.id", group, "auto.offset.reset", "earliest");
  }

  private void commit(String group, TopicPartition tp, long offset) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(group)) {
      consumer.commitSync(Map.of(tp, new OffsetAndMetadata(offset)));
    }
  }

  private Map<TopicPartition, OffsetAndMetadata> committed(String group) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(group)) {
      return consumer.committed(Set.of(P0, P1), Duration.ofSeconds(30));
    }
  }

  private long endOffset(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      TopicPartition tp = new TopicPartition(topic, 0);
      return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
    }
  }

  private Uuid topicId(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
    }
  }

  /** One raw Produce of {@code records} to partition 0 of {@code topic}; its error. */
  private Errors rawProduce(String clientId, String topic, MemoryRecords records) throws Exception {
    short version = ApiKeys.PRODUCE.latestVersion();
    ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName(topic).setTopicId(topicId(topic));
    data.partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
    request.topicData().add(data);
    try (RawKafkaClient client = new RawKafkaClient("127.0.0.1", brook.port(), clientId)) {
      ByteBuffer body = client.send(request, version);
      ProduceResponseData response = new ProduceResponseData(new ByteBufferAccessor(body), version);
      return Errors.forCode(
          response.responses().iterator().next().partitionResponses().get(0).errorCode());
    }
  }

  private static MemoryRecords keyed(String key, String value) {
    return MemoryRecords.withRecords(
        Compression.NONE,
        new SimpleRecord(
            key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)));
  }

  /** A consumer joins {@code group}, gets both partitions and reads from the committed offsets. */
  private void joinAndConsume(String group, long expectedFirstOffsetOfP0) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(group)) {
      consumer.subscribe(List.of(TOPIC));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      ConsumerRecords<byte[], byte[]> records = ConsumerRecords.empty();
      while (records.records(P0).isEmpty() && System.nanoTime() < deadline) {
        records = consumer.poll(Duration.ofMillis(500));
      }
      assertThat(consumer.assignment()).containsExactlyInAnyOrder(P0, P1);
      assertThat(records.records(P0)).isNotEmpty();
      assertThat(records.records(P0).get(0).offset()).isEqualTo(expectedFirstOffsetOfP0);
    }
  }

  @Test
  void clientsCannotWriteInternalTopicsAndGroupsWorkAfterARestart() throws Exception {
    long offsetsEnd = endOffset(OFFSETS);
    long txnEnd = endOffset(TXN_STATE);

    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (String internal : List.of(OFFSETS, TXN_STATE)) {
        var sent = producer.send(new ProducerRecord<>(internal, 0, "k".getBytes(), "v".getBytes()));
        assertThatThrownBy(() -> sent.get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(InvalidTopicException.class);
      }
    }
    assertThat(rawProduce("raw-test", OFFSETS, keyed("k", "v")))
        .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
    assertThat(rawProduce("raw-test", TXN_STATE, keyed("k", "v")))
        .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
    // As in Kafka, the records are checked before the topic: two batches are INVALID_RECORD
    ByteBuffer twoBatches = ByteBuffer.allocate(2 * keyed("k", "v").sizeInBytes());
    twoBatches.put(keyed("k", "v").buffer()).put(keyed("k", "v").buffer()).flip();
    assertThat(rawProduce("raw-test", OFFSETS, MemoryRecords.readableRecords(twoBatches)))
        .isEqualTo(Errors.INVALID_RECORD);
    assertThat(endOffset(OFFSETS)).isEqualTo(offsetsEnd);
    assertThat(endOffset(TXN_STATE)).isEqualTo(txnEnd);

    brook.restart();

    assertThat(committed("billing").get(P0).offset()).isEqualTo(5);
    commit("billing", P1, 3);
    assertThat(committed("billing").get(P1).offset()).isEqualTo(3);
    joinAndConsume("billing", 5);
    try (KafkaProducer<byte[], byte[]> txn =
        TestClients.producer(brook.bootstrapServers(), "transactional.id", "setup")) {
      txn.initTransactions(); // the transaction coordinator loaded its partition too
    }
  }

  @Test
  void garbageInTheOffsetsTopicIsSkippedWhenTheCoordinatorLoads() throws Exception {
    // As in Kafka, the admin client id may write internal topics: the one way in for garbage
    List<MemoryRecords> garbage =
        List.of(
            keyed("\u0000\u0001not an offset key", "\u0000\u0003not a value"),
            keyed("\u0000\u0002x", "\u0000\u0003\u007f\u007f\u007f\u007f"),
            keyed("\u0000\u0005\u0000\u0001g", "\u0000\u0000\u00ff"),
            keyed("\u0000", "too short a key"),
            keyed(
                "\u0000\u0001\u0000\u0007billing\u0000\u0006orders\u0000\u0000\u0000\u0000", "?"));
    for (MemoryRecords records : garbage) {
      assertThat(rawProduce("__admin_client", OFFSETS, records)).isEqualTo(Errors.NONE);
    }
    commit("billing", P1, 7);

    brook.restart();

    Map<TopicPartition, OffsetAndMetadata> after = committed("billing");
    assertThat(after.get(P0).offset()).isEqualTo(5);
    assertThat(after.get(P1).offset()).isEqualTo(7);
    commit("billing", P0, 6);
    joinAndConsume("billing", 6);
    Object skipped =
        ManagementFactory.getPlatformMBeanServer()
            .getAttribute(
                new ObjectName("kafka.server:type=group-coordinator-metrics"),
                "load-skipped-records-total");
    assertThat((Long) skipped).isEqualTo(garbage.size());
  }
}
