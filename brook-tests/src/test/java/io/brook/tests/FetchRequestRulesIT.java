package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fetch requests written by hand, over a raw socket, against the full broker: duplicate partitions
 * by topic name (v12) and by topic id (latest), the response and partition byte limits, a wait of
 * {@code Integer.MAX_VALUE} ms that an append still ends, and an unknown isolation level.
 */
@Timeout(120)
class FetchRequestRulesIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  /** The last Fetch version that names topics; ids replace names from v13. */
  private static final short BY_NAME = 12;

  private static final short LATEST = ApiKeys.FETCH.latestVersion();

  private static RawKafkaClient connect() throws IOException {
    RawKafkaClient client = new RawKafkaClient("127.0.0.1", BROOK.brook().port());
    client.setTimeout(Duration.ofSeconds(60));
    return client;
  }

  /** Creates {@code topic} with two partitions, each holding {@code records} 1 KB records. */
  private static Uuid topicWithData(String topic, int records) throws Exception {
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 2);
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(BROOK.bootstrapServers(), "linger.ms", "0", "batch.size", "1")) {
      for (int i = 0; i < records; i++) {
        for (int partition = 0; partition < 2; partition++) {
          producer.send(new ProducerRecord<>(topic, partition, null, new byte[1_000])).get();
        }
      }
    }
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
    }
  }

  private static FetchRequestData.FetchTopic topic(
      FetchRequestData request, String name, Uuid id, short version) {
    FetchRequestData.FetchTopic topic =
        version >= 13
            ? new FetchRequestData.FetchTopic().setTopicId(id)
            : new FetchRequestData.FetchTopic().setTopic(name);
    request.topics().add(topic);
    return topic;
  }

  private static void partition(
      FetchRequestData.FetchTopic topic, int partition, long offset, int maxBytes) {
    topic
        .partitions()
        .add(
            new FetchRequestData.FetchPartition()
                .setPartition(partition)
                .setFetchOffset(offset)
                .setPartitionMaxBytes(maxBytes));
  }

  private static FetchResponseData fetch(RawKafkaClient client, FetchRequestData request, short v)
      throws IOException {
    ByteBuffer body = client.send(request, v);
    return new FetchResponseData(new ByteBufferAccessor(body), v);
  }

  private static long firstOffset(FetchResponseData.PartitionData data) {
    return ((MemoryRecords) data.records()).batches().iterator().next().baseOffset();
  }

  @Test
  void aPartitionListedTwiceIsAnsweredOnceByNameAndById() throws Exception {
    Uuid id = topicWithData("fetch-duplicates", 3);
    for (short version : new short[] {BY_NAME, LATEST}) {
      // Given: partition 0 asked for at offset 0, partition 1, then partition 0 again at offset 2
      FetchRequestData request =
          new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20);
      FetchRequestData.FetchTopic topic = topic(request, "fetch-duplicates", id, version);
      partition(topic, 0, 0, 1 << 20);
      partition(topic, 1, 0, 1 << 20);
      partition(topic, 0, 2, 1 << 20);

      // When
      FetchResponseData response;
      try (RawKafkaClient client = connect()) {
        response = fetch(client, request, version);
      }

      // Then: each partition once, partition 0 from the offset of its last listing
      assertThat(response.responses()).as("v%d", version).hasSize(1);
      List<FetchResponseData.PartitionData> partitions = response.responses().get(0).partitions();
      assertThat(partitions)
          .as("v%d", version)
          .extracting(FetchResponseData.PartitionData::partitionIndex)
          .containsExactly(0, 1);
      assertThat(firstOffset(partitions.get(0))).as("v%d", version).isEqualTo(2);
      assertThat(firstOffset(partitions.get(1))).as("v%d", version).isZero();
    }
  }

  @Test
  void theResponseLimitLeavesOutABatchThatDoesNotFitRatherThanSendingPartOfIt() throws Exception {
    Uuid id = topicWithData("fetch-limits", 2);
    // Given: room for a little more than partition 0's first batch
    FetchRequestData probe = new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(0);
    partition(topic(probe, "fetch-limits", id, LATEST), 0, 0, 0);
    int batch;
    try (RawKafkaClient client = connect()) {
      batch =
          fetch(client, probe, LATEST)
              .responses()
              .get(0)
              .partitions()
              .get(0)
              .records()
              .sizeInBytes();
    }
    assertThat(batch).as("max_bytes 0 still sends the first batch").isGreaterThan(1_000);

    FetchRequestData request =
        new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(batch + 200);
    FetchRequestData.FetchTopic topic = topic(request, "fetch-limits", id, LATEST);
    partition(topic, 0, 0, batch);
    partition(topic, 1, 0, 1 << 20);

    // When
    FetchResponseData response;
    try (RawKafkaClient client = connect()) {
      response = fetch(client, request, LATEST);
    }

    // Then: partition 0 keeps to its own limit; partition 1's batch does not fit what is left
    List<FetchResponseData.PartitionData> partitions = response.responses().get(0).partitions();
    assertThat(partitions.get(0).records().sizeInBytes()).isEqualTo(batch);
    assertThat(partitions.get(1).records().sizeInBytes()).isZero();
  }

  @Test
  void aWaitOfIntegerMaxValueIsEndedByAnAppend() throws Exception {
    Uuid id = topicWithData("fetch-long-wait", 1);
    try (RawKafkaClient client = connect();
        KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      // Given: a fetch at the log end that may wait as long as an int allows
      FetchRequestData request =
          new FetchRequestData()
              .setMaxWaitMs(Integer.MAX_VALUE)
              .setMinBytes(1)
              .setMaxBytes(1 << 20);
      partition(topic(request, "fetch-long-wait", id, LATEST), 0, 1, 1 << 20);
      client.sendBytes(RawKafkaClient.frame(request, LATEST, 1));

      // When: a record arrives
      producer.send(new ProducerRecord<>("fetch-long-wait", 0, null, new byte[10])).get();

      // Then: the parked fetch answers with it
      ByteBuffer frame = client.readFrame();
      org.apache.kafka.common.requests.ResponseHeader.parse(
          frame, ApiKeys.FETCH.responseHeaderVersion(LATEST));
      FetchResponseData response = new FetchResponseData(new ByteBufferAccessor(frame), LATEST);
      assertThat(firstOffset(response.responses().get(0).partitions().get(0))).isEqualTo(1);
    }
  }

  @Test
  void anUnknownIsolationLevelFailsTheWholeRequest() throws Exception {
    Uuid id = topicWithData("fetch-isolation", 1);
    FetchRequestData request =
        new FetchRequestData()
            .setMaxWaitMs(0)
            .setMinBytes(1)
            .setMaxBytes(1 << 20)
            .setIsolationLevel((byte) 7);
    partition(topic(request, "fetch-isolation", id, LATEST), 0, 0, 1 << 20);

    FetchResponseData response;
    try (RawKafkaClient client = connect()) {
      response = fetch(client, request, LATEST);
    }

    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.INVALID_REQUEST);
    assertThat(response.responses()).isEmpty();
  }
}
