package io.brook.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every version the broker advertises in ApiVersions, for the APIs that clients of every age use on
 * the data path (kcat speaks ListOffsets v2, kafkajs v3, kafka-clients the latest) and the
 * reassignment APIs with DescribeLogDirs, which kafka-reassign-partitions uses: a plain, valid
 * request at each version gets a response that parses at that version and carries no error.
 */
@Timeout(120)
class EveryVersionIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  private static final String TOPIC = "every-version";
  private static Uuid topicId;

  @BeforeAll
  static void topicWithRecords() throws Exception {
    TestClients.createTopic(BROOK.bootstrapServers(), TOPIC, 1);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(BROOK.bootstrapServers())) {
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>(TOPIC, 0, null, ("r" + i).getBytes(UTF_8)));
      }
      producer.flush();
    }
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      topicId = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId();
    }
  }

  /** A valid request of each API for one version. */
  private static Map<ApiKeys, IntFunction<ApiMessage>> requests() {
    Map<ApiKeys, IntFunction<ApiMessage>> requests = new HashMap<>(dataPathRequests());
    // The partition's only replica as its target: nothing moves, and no error.
    requests.put(
        ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
        v -> {
          AlterPartitionReassignmentsRequestData.ReassignableTopic topic =
              new AlterPartitionReassignmentsRequestData.ReassignableTopic().setName(TOPIC);
          topic
              .partitions()
              .add(
                  new AlterPartitionReassignmentsRequestData.ReassignablePartition()
                      .setPartitionIndex(0)
                      .setReplicas(List.of(1)));
          return new AlterPartitionReassignmentsRequestData().setTopics(List.of(topic));
        });
    requests.put(
        ApiKeys.LIST_PARTITION_REASSIGNMENTS,
        v -> new ListPartitionReassignmentsRequestData().setTopics(null));
    requests.put(ApiKeys.DESCRIBE_LOG_DIRS, v -> new DescribeLogDirsRequestData().setTopics(null));
    return requests;
  }

  private static Map<ApiKeys, IntFunction<ApiMessage>> dataPathRequests() {
    return Map.of(
        ApiKeys.API_VERSIONS,
        v ->
            v >= 3
                ? new ApiVersionsRequestData()
                    .setClientSoftwareName("every-version-it")
                    .setClientSoftwareVersion("1.0")
                : new ApiVersionsRequestData(),
        ApiKeys.METADATA,
        v -> {
          MetadataRequestData data = new MetadataRequestData();
          data.setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(TOPIC)));
          return v >= 4 ? data.setAllowAutoTopicCreation(false) : data;
        },
        ApiKeys.PRODUCE,
        v -> {
          ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData();
          if (v >= 13) {
            topic.setTopicId(topicId);
          } else {
            topic.setName(TOPIC);
          }
          topic
              .partitionData()
              .add(
                  new ProduceRequestData.PartitionProduceData()
                      .setIndex(0)
                      .setRecords(
                          MemoryRecords.withRecords(
                              Compression.NONE, new SimpleRecord(("v" + v).getBytes(UTF_8)))));
          ProduceRequestData data = new ProduceRequestData().setAcks((short) -1);
          data.setTimeoutMs(30_000).topicData().add(topic);
          return data;
        },
        ApiKeys.FETCH,
        v -> {
          FetchRequestData.FetchTopic topic =
              new FetchRequestData.FetchTopic()
                  .setPartitions(
                      List.of(
                          new FetchRequestData.FetchPartition()
                              .setPartition(0)
                              .setFetchOffset(0)
                              .setPartitionMaxBytes(1 << 20)));
          if (v >= 13) {
            topic.setTopicId(topicId);
          } else {
            topic.setTopic(TOPIC);
          }
          return new FetchRequestData()
              .setReplicaId(-1)
              .setMaxWaitMs(0)
              .setMinBytes(1)
              .setMaxBytes(1 << 20)
              .setTopics(List.of(topic));
        },
        ApiKeys.LIST_OFFSETS,
        v ->
            new ListOffsetsRequestData()
                .setReplicaId(-1)
                .setTopics(
                    List.of(
                        new ListOffsetsRequestData.ListOffsetsTopic()
                            .setName(TOPIC)
                            .setPartitions(
                                List.of(
                                    new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(-1L))))),
        ApiKeys.OFFSET_FOR_LEADER_EPOCH,
        v -> {
          OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics =
              new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
          topics.add(
              new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
                  .setTopic(TOPIC)
                  .setPartitions(
                      List.of(
                          new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                              .setPartition(0)
                              .setLeaderEpoch(0))));
          OffsetForLeaderEpochRequestData data =
              new OffsetForLeaderEpochRequestData().setTopics(topics);
          return v >= 3 ? data.setReplicaId(-1) : data;
        },
        ApiKeys.INIT_PRODUCER_ID,
        v ->
            new InitProducerIdRequestData()
                .setTransactionalId(null)
                .setTransactionTimeoutMs(60_000),
        ApiKeys.DESCRIBE_CLUSTER,
        v -> new DescribeClusterRequestData(),
        ApiKeys.DESCRIBE_CONFIGS,
        v ->
            new DescribeConfigsRequestData()
                .setResources(
                    List.of(
                        new DescribeConfigsRequestData.DescribeConfigsResource()
                            .setResourceType(ConfigResource.Type.TOPIC.id())
                            .setResourceName(TOPIC)
                            .setConfigurationKeys(null))),
        ApiKeys.DESCRIBE_PRODUCERS,
        v -> {
          DescribeProducersRequestData.TopicRequestCollection topics =
              new DescribeProducersRequestData.TopicRequestCollection();
          topics.add(
              new DescribeProducersRequestData.TopicRequest()
                  .setName(TOPIC)
                  .setPartitionIndexes(List.of(0)));
          return new DescribeProducersRequestData().setTopics(topics);
        });
  }

  @TestFactory
  Stream<DynamicTest> everyAdvertisedVersionAnswersWithoutError() throws IOException {
    // Given: what the broker says it supports
    ApiVersionsResponseData advertised;
    try (RawKafkaClient client = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      short version = ApiKeys.API_VERSIONS.latestVersion();
      advertised =
          new ApiVersionsResponseData(
              new ByteBufferAccessor(client.send(new ApiVersionsRequestData(), version)), version);
    }
    List<DynamicTest> tests = new ArrayList<>();
    requests()
        .forEach(
            (key, request) -> {
              ApiVersionsResponseData.ApiVersion range = advertised.apiKeys().find(key.id);
              assertThat(range).as("%s advertised", key).isNotNull();
              for (short v = range.minVersion(); v <= range.maxVersion(); v++) {
                short version = v;
                tests.add(
                    DynamicTest.dynamicTest(
                        key + " v" + version, () -> assertAnswered(key, version, request)));
              }
            });
    return tests.stream().sorted(Comparator.comparing(DynamicTest::getDisplayName));
  }

  private static void assertAnswered(ApiKeys key, short version, IntFunction<ApiMessage> request)
      throws IOException {
    try (RawKafkaClient client = new RawKafkaClient("127.0.0.1", BROOK.brook().port())) {
      // When
      ByteBuffer body;
      try {
        body = client.send(request.apply(version), version);
      } catch (IOException e) {
        throw new AssertionError(
            key + " v" + version + ": the broker closed the connection instead of answering", e);
      }

      // Then
      AbstractResponse response =
          AbstractResponse.parseResponse(key, new ByteBufferAccessor(body), version);
      assertThat(body.remaining())
          .as("bytes left after the %s v%d response", key, version)
          .isZero();
      assertThat(response.errorCounts().keySet())
          .as("errors in %s v%d: %s", key, version, response)
          .isSubsetOf(Errors.NONE);
    }
  }
}
