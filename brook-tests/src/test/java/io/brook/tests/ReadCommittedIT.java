package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transactions as a coordinator drives them, with raw requests (and transaction verification off):
 * transactional batches from three producers, then WriteTxnMarkers commits one and aborts one,
 * leaving the third open. A real read_committed consumer sees only committed records and stops at
 * the open transaction (the last stable offset); read_uncommitted sees everything.
 */
class ReadCommittedIT {
  // The raw producers here play the coordinator's part themselves (no AddPartitionsToTxn): the
  // leader must not ask a coordinator about their partitions.
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder().config("transaction.partition.verification.enable", "false"));

  private static final String TOPIC = "txns";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

  @Test
  void readCommittedStopsAtTheOpenTransactionAndSkipsTheAbortedOne() throws Exception {
    // Given
    TestClients.createTopic(BROOK.bootstrapServers(), TOPIC, 1);
    try (RawKafkaClient client = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      long committed = initProducerId(client);
      long aborted = initProducerId(client);
      long open = initProducerId(client);
      produce(client, committed, 0, "c1", "c2"); // 0-1
      produce(client, aborted, 0, "a1"); // 2
      produce(client, open, 0, "o1"); // 3

      // When
      writeMarker(client, committed, true); // 4
      writeMarker(client, aborted, false); // 5

      // Then
      assertThat(values(readUpTo(3, "read_committed"))).containsExactly("c1", "c2");
      assertThat(values(readUpTo(6, "read_uncommitted"))).containsExactly("c1", "c2", "a1", "o1");
      assertThat(latest(IsolationLevel.READ_COMMITTED)).isEqualTo(3);
      assertThat(latest(IsolationLevel.READ_UNCOMMITTED)).isEqualTo(6);

      // When: the open transaction commits
      writeMarker(client, open, true); // 6

      // Then
      assertThat(values(readUpTo(7, "read_committed"))).containsExactly("c1", "c2", "o1");
      assertThat(latest(IsolationLevel.READ_COMMITTED)).isEqualTo(7);
    }
  }

  @Test
  void everyWriteTxnMarkersVersionIsServed() throws Exception {
    TestClients.createTopic(BROOK.bootstrapServers(), "markers", 1);
    try (RawKafkaClient client = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      for (short v = ApiKeys.WRITE_TXN_MARKERS.oldestVersion();
          v <= ApiKeys.WRITE_TXN_MARKERS.latestVersion();
          v++) {
        long producerId = initProducerId(client);
        writeMarker(client, "markers", producerId, v % 2 == 0, v);
      }
    }
  }

  /**
   * Reads from the beginning until the consumer's position reaches {@code end}; checks it stops.
   */
  private static List<ConsumerRecord<byte[], byte[]>> readUpTo(long end, String isolation) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(BROOK.bootstrapServers(), "isolation.level", isolation)) {
      consumer.assign(List.of(TP));
      consumer.seekToBeginning(List.of(TP));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (consumer.position(TP) < end) {
        assertThat(System.nanoTime()).as("reached %d within 30 s", end).isLessThan(deadline);
        consumer.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      // Nothing more is delivered past the end (the last stable offset for read_committed).
      consumer.poll(Duration.ofMillis(500)).forEach(out::add);
      assertThat(consumer.position(TP)).isEqualTo(end);
    }
    return out;
  }

  private static List<String> values(List<ConsumerRecord<byte[], byte[]>> records) {
    return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
  }

  private static long latest(IsolationLevel isolation) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      return admin
          .listOffsets(Map.of(TP, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
          .all()
          .get()
          .get(TP)
          .offset();
    }
  }

  private static long initProducerId(RawKafkaClient client) throws Exception {
    ByteBuffer body =
        client.send(
            new InitProducerIdRequestData()
                .setTransactionalId(null)
                .setTransactionTimeoutMs(60_000)
                .setProducerId(-1)
                .setProducerEpoch((short) -1),
            (short) 4);
    InitProducerIdResponseData init =
        new InitProducerIdResponseData(new ByteBufferAccessor(body), (short) 4);
    assertThat(init.errorCode()).isEqualTo(Errors.NONE.code());
    return init.producerId();
  }

  private static void produce(RawKafkaClient client, long producerId, int sequence, String... vals)
      throws Exception {
    SimpleRecord[] records = new SimpleRecord[vals.length];
    for (int i = 0; i < vals.length; i++) {
      records[i] = new SimpleRecord(vals[i].getBytes(StandardCharsets.UTF_8));
    }
    MemoryRecords batch =
        MemoryRecords.withTransactionalRecords(
            Compression.NONE, producerId, (short) 0, sequence, records);
    // v11: addressed by topic name (v13+ needs the topic id).
    short version = 11;
    ProduceRequestData request =
        new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTransactionalId("t");
    ProduceRequestData.TopicProduceData topicData =
        new ProduceRequestData.TopicProduceData().setName(TOPIC);
    topicData
        .partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(batch));
    request.topicData().add(topicData);
    ProduceResponseData response =
        new ProduceResponseData(new ByteBufferAccessor(client.send(request, version)), version);
    assertThat(response.responses().iterator().next().partitionResponses().get(0).errorCode())
        .isEqualTo(Errors.NONE.code());
  }

  private static void writeMarker(RawKafkaClient client, long producerId, boolean commit)
      throws Exception {
    writeMarker(client, TOPIC, producerId, commit, ApiKeys.WRITE_TXN_MARKERS.latestVersion());
  }

  private static void writeMarker(
      RawKafkaClient client, String topicName, long producerId, boolean commit, short version)
      throws Exception {
    assertThat(
            client.writeTxnMarker(topicName, producerId, (short) 0, commit, 1, (byte) 0, version))
        .isEqualTo(Errors.NONE);
  }
}
