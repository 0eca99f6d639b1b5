package io.brook.tests.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.RawKafkaClient;
import io.brook.tests.TestClients;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fetch whose partitions all start below their local log start reads every one of them from
 * remote storage in that one fetch, in parallel on the reader threads, within the fetch's byte
 * limits: a real broker with the local-filesystem store, three partitions whose first segments are
 * only remote; kafka-clients' consumer, and fetches written by hand to see each response.
 */
@Timeout(180)
class TieredMultiPartitionFetchIT {
  private static final String TOPIC = "tiered-fetch";
  private static final int PARTITIONS = 3;
  private static final int RECORDS = 320;
  private static final int VALUE_BYTES = 4096;
  private static final short LATEST = ApiKeys.FETCH.latestVersion();

  @TempDir Path tmp;

  private EmbeddedBrook brook;
  private Uuid topicId;

  @BeforeEach
  void threePartitionsWhoseOffsetZeroIsOnlyRemote() throws Exception {
    // A remote read never times out here: only the fetch's own shape decides what is answered.
    brook =
        TieredStorageIT.tieredBroker(tmp)
            .config("rsm.config.dir", tmp.resolve("store").toString())
            .config("remote.fetch.max.wait.ms", "120000")
            .start();
    TestClients.createTopic(
        brook.bootstrapServers(),
        TOPIC,
        PARTITIONS,
        Map.of(
            "remote.storage.enable", "true",
            "local.retention.ms", "1000",
            "retention.ms", "-1",
            "segment.bytes", "1048576"));
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (int i = 0; i < RECORDS; i++) {
        for (int p = 0; p < PARTITIONS; p++) {
          producer.send(new ProducerRecord<>(TOPIC, p, null, new byte[VALUE_BYTES]));
        }
      }
      producer.flush();
    }
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      Map<TopicPartition, OffsetSpec> earliestLocal = new HashMap<>();
      for (TopicPartition tp : TestClients.partitions(TOPIC, PARTITIONS)) {
        earliestLocal.put(tp, OffsetSpec.earliestLocal());
      }
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  admin.listOffsets(earliestLocal).all().get().values().stream()
                      .allMatch(o -> o.offset() > 0));
      topicId = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId();
    }
  }

  @AfterEach
  void stop() throws Exception {
    brook.close();
  }

  @Test
  void aConsumersFirstFetchBringsEveryRemotePartition() throws Exception {
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(brook.bootstrapServers(), "max.poll.records", "100000")) {
      List<TopicPartition> all = TestClients.partitions(TOPIC, PARTITIONS);
      consumer.assign(all);
      consumer.seekToBeginning(all);

      // When: polled until the first records arrive
      ConsumerRecords<byte[], byte[]> first = ConsumerRecords.empty();
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (first.isEmpty() && System.nanoTime() < deadline) {
        first = consumer.poll(Duration.ofMillis(200));
      }

      // Then: they come from all three partitions, from offset 0, and one fetch response brought
      // them (one remote partition per fetch would need three)
      Set<TopicPartition> from = new HashSet<>();
      for (ConsumerRecord<byte[], byte[]> r : first) {
        from.add(new TopicPartition(r.topic(), r.partition()));
      }
      assertThat(from).containsExactlyInAnyOrderElementsOf(all);
      for (TopicPartition tp : all) {
        assertThat(first.records(tp).get(0).offset()).isZero();
      }
      assertThat(fetchResponses(consumer)).isEqualTo(1.0);
    }
  }

  @Test
  void oneFetchReadsEveryRemotePartitionWithinItsPartitionLimits() throws Exception {
    // Given: room for all three at 64 KiB each
    FetchRequestData request = fetch(1 << 20, 64 * 1024);

    // When
    List<FetchResponseData.PartitionData> answered = send(request);

    // Then: each partition answered from offset 0 with batches within its limit
    assertThat(answered).hasSize(PARTITIONS);
    for (FetchResponseData.PartitionData data : answered) {
      assertThat(data.errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(data.logStartOffset()).isZero();
      assertThat(data.records().sizeInBytes()).isPositive().isLessThanOrEqualTo(64 * 1024);
      assertThat(firstOffset(data)).isZero();
    }
  }

  @Test
  void aRemotePartitionWithNoRoomLeftIsAnsweredEmptyWithoutAnError() throws Exception {
    // Given: max_bytes holds the first partition's 64 KiB and half as much again
    FetchRequestData request = fetch(96 * 1024, 64 * 1024);

    // When
    List<FetchResponseData.PartitionData> answered = send(request);

    // Then: the second reads what is left, the third nothing, and none fails
    assertThat(answered)
        .extracting(FetchResponseData.PartitionData::errorCode)
        .containsOnly((short) 0);
    assertThat(answered.get(0).records().sizeInBytes()).isPositive().isLessThanOrEqualTo(64 * 1024);
    assertThat(answered.get(1).records().sizeInBytes()).isPositive().isLessThanOrEqualTo(32 * 1024);
    assertThat(answered.get(2).records().sizeInBytes()).isZero();
    assertThat(answered.get(2).logStartOffset()).isZero();
    assertThat(answered.get(2).highWatermark()).isEqualTo(RECORDS);
  }

  /** A fetch of every partition from offset 0. */
  private FetchRequestData fetch(int maxBytes, int partitionMaxBytes) {
    FetchRequestData request =
        new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(maxBytes);
    FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopicId(topicId);
    for (int p = 0; p < PARTITIONS; p++) {
      topic
          .partitions()
          .add(
              new FetchRequestData.FetchPartition()
                  .setPartition(p)
                  .setFetchOffset(0)
                  .setPartitionMaxBytes(partitionMaxBytes));
    }
    request.topics().add(topic);
    return request;
  }

  private List<FetchResponseData.PartitionData> send(FetchRequestData request) throws Exception {
    try (RawKafkaClient client = new RawKafkaClient("127.0.0.1", brook.port())) {
      client.setTimeout(Duration.ofSeconds(60));
      ByteBuffer body = client.send(request, LATEST);
      FetchResponseData response = new FetchResponseData(new ByteBufferAccessor(body), LATEST);
      assertThat(response.responses()).hasSize(1);
      return response.responses().get(0).partitions();
    }
  }

  private static long firstOffset(FetchResponseData.PartitionData data) {
    return ((MemoryRecords) data.records()).batches().iterator().next().baseOffset();
  }

  /** Fetch responses the consumer has received ({@code fetch-total}). */
  private static double fetchResponses(KafkaConsumer<?, ?> consumer) {
    for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
      if (e.getKey().name().equals("fetch-total")
          && e.getKey().group().equals("consumer-fetch-manager-metrics")) {
        return (Double) e.getValue().metricValue();
      }
    }
    throw new AssertionError("the consumer has no fetch-total metric");
  }
}
