package io.brook.tests.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.RawKafkaClient;
import io.brook.tests.TestClients;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Committed offsets through real kafka-clients: commit, read back, resume from them, survive a
 * broker restart, list and delete them with the Admin API; bad commits get Kafka's error codes.
 */
class CommittedOffsetsIT {
  private static final String TOPIC = "orders";

  @TempDir java.nio.file.Path dataDir;
  private EmbeddedBrook brook;

  @BeforeEach
  void start() throws Exception {
    brook =
        EmbeddedBrook.builder()
            .dataDir(dataDir)
            .config("offsets.topic.num.partitions", "5")
            .start();
    TestClients.createTopic(brook.bootstrapServers(), TOPIC, 3);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (int i = 0; i < 30; i++) {
        producer.send(new ProducerRecord<>(TOPIC, i % 3, null, ("v" + i).getBytes()));
      }
      producer.flush();
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

  @Test
  void committedOffsetsAreReadBackAndSurviveARestart() {
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    commit.put(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(4, "first"));
    commit.put(new TopicPartition(TOPIC, 1), new OffsetAndMetadata(7));
    try (KafkaConsumer<byte[], byte[]> consumer = consumer("billing")) {
      consumer.commitSync(commit);
      assertThat(consumer.committed(commit.keySet())).isEqualTo(commit);
    }

    brook.restart();

    try (KafkaConsumer<byte[], byte[]> consumer = consumer("billing")) {
      Set<TopicPartition> all = Set.copyOf(TestClients.partitions(TOPIC, 3));
      Map<TopicPartition, OffsetAndMetadata> after = consumer.committed(all);
      assertThat(after.get(new TopicPartition(TOPIC, 0)).offset()).isEqualTo(4);
      assertThat(after.get(new TopicPartition(TOPIC, 0)).metadata()).isEqualTo("first");
      assertThat(after.get(new TopicPartition(TOPIC, 1)).offset()).isEqualTo(7);
      assertThat(after.get(new TopicPartition(TOPIC, 2))).isNull();
    }
  }

  @Test
  void aConsumerResumesFromTheGroupsCommittedOffset() {
    TopicPartition p0 = new TopicPartition(TOPIC, 0);
    try (KafkaConsumer<byte[], byte[]> consumer = consumer("search")) {
      consumer.commitSync(Map.of(p0, new OffsetAndMetadata(6)));
    }
    try (KafkaConsumer<byte[], byte[]> consumer = consumer("search")) {
      consumer.assign(List.of(p0));
      var records = consumer.poll(Duration.ofSeconds(10));
      assertThat(records.records(p0)).isNotEmpty();
      assertThat(records.records(p0).get(0).offset()).isEqualTo(6);
    }
  }

  @Test
  void groupsAreIndependent() {
    TopicPartition p2 = new TopicPartition(TOPIC, 2);
    try (KafkaConsumer<byte[], byte[]> fraud = consumer("fraud");
        KafkaConsumer<byte[], byte[]> warehouse = consumer("warehouse")) {
      fraud.commitSync(Map.of(p2, new OffsetAndMetadata(9)));
      warehouse.commitSync(Map.of(p2, new OffsetAndMetadata(2)));
      assertThat(fraud.committed(Set.of(p2)).get(p2).offset()).isEqualTo(9);
      assertThat(warehouse.committed(Set.of(p2)).get(p2).offset()).isEqualTo(2);
    }
  }

  @Test
  void adminListsDescribesAndDeletesGroupOffsets() throws Exception {
    TopicPartition p0 = new TopicPartition(TOPIC, 0);
    TopicPartition p1 = new TopicPartition(TOPIC, 1);
    try (KafkaConsumer<byte[], byte[]> consumer = consumer("warehouse")) {
      consumer.commitSync(Map.of(p0, new OffsetAndMetadata(3), p1, new OffsetAndMetadata(5)));
    }
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      Collection<ConsumerGroupListing> listed = admin.listConsumerGroups().all().get();
      assertThat(listed.stream().map(ConsumerGroupListing::groupId).collect(Collectors.toSet()))
          .contains("warehouse");

      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets("warehouse").partitionsToOffsetAndMetadata().get();
      assertThat(offsets).containsOnlyKeys(p0, p1);
      assertThat(offsets.get(p1).offset()).isEqualTo(5);

      admin.deleteConsumerGroupOffsets("warehouse", Set.of(p0)).all().get();
      assertThat(admin.listConsumerGroupOffsets("warehouse").partitionsToOffsetAndMetadata().get())
          .containsOnlyKeys(p1);

      admin.deleteConsumerGroups(List.of("warehouse")).all().get();
      assertThat(admin.listConsumerGroupOffsets("warehouse").partitionsToOffsetAndMetadata().get())
          .isEmpty();
      assertThat(admin.listConsumerGroups().all().get().stream().map(ConsumerGroupListing::groupId))
          .doesNotContain("warehouse");
    }
  }

  @Test
  void badCommitsGetKafkasErrorCodesAndOtherGroupsKeepWorking() throws Exception {
    // Warm up the coordinator of the group through a real client first.
    try (KafkaConsumer<byte[], byte[]> consumer = consumer("ledger")) {
      consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(1)));
    }
    try (RawKafkaClient raw = new RawKafkaClient("127.0.0.1", brook.port())) {
      assertThat(commit(raw, "ledger", 5, "member-1", "", (short) 8))
          .isEqualTo(Errors.ILLEGAL_GENERATION);
      assertThat(commit(raw, "no-such-group", 5, "member-1", "", (short) 9))
          .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
      assertThat(commit(raw, "", -1, "", "", (short) 8)).isEqualTo(Errors.INVALID_GROUP_ID);
      assertThat(commit(raw, "ledger", -1, "", "x".repeat(5000), (short) 8))
          .isEqualTo(Errors.OFFSET_METADATA_TOO_LARGE);
      assertThat(commit(raw, "ledger", -1, "", "ok", (short) 8)).isEqualTo(Errors.NONE);
    }
    try (KafkaConsumer<byte[], byte[]> consumer = consumer("ledger")) {
      TopicPartition p0 = new TopicPartition(TOPIC, 0);
      assertThat(consumer.committed(Set.of(p0)).get(p0).offset()).isEqualTo(11);
    }
  }

  private static Errors commit(
      RawKafkaClient raw,
      String group,
      int generation,
      String memberId,
      String metadata,
      short version)
      throws Exception {
    OffsetCommitRequestData request =
        new OffsetCommitRequestData()
            .setGroupId(group)
            .setGenerationIdOrMemberEpoch(generation)
            .setMemberId(memberId);
    request
        .topics()
        .add(
            new OffsetCommitRequestData.OffsetCommitRequestTopic()
                .setName(TOPIC)
                .setPartitions(
                    List.of(
                        new OffsetCommitRequestData.OffsetCommitRequestPartition()
                            .setPartitionIndex(0)
                            .setCommittedOffset(11)
                            .setCommittedMetadata(metadata))));
    ByteBuffer body = raw.send(request, version);
    OffsetCommitResponseData response =
        new OffsetCommitResponseData(new ByteBufferAccessor(body), version);
    return Errors.forCode(response.topics().get(0).partitions().get(0).errorCode());
  }
}
