package io.brook.broker;

import static io.brook.broker.BrokerFixture.fetchRequest;
import static io.brook.broker.BrokerFixture.produceRequest;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.FetchHandler;
import io.brook.broker.api.ListOffsetsHandler;
import io.brook.broker.api.MetadataHandler;
import io.brook.broker.api.ProduceHandler;
import io.brook.protocol.ZeroCopyRecords;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataPlaneTest {
  @TempDir Path root;
  BrokerFixture broker;
  ProduceHandler produce;
  FetchHandler fetch;

  @BeforeEach
  void start() throws Exception {
    broker = new BrokerFixture(root);
    broker.createTopic("orders", 2);
    produce = new ProduceHandler(broker.replicaManager);
    fetch = new FetchHandler(broker.replicaManager);
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  private static ProduceResponseData.PartitionProduceResponse only(ProduceResponseData response) {
    return response.responses().iterator().next().partitionResponses().get(0);
  }

  @Test
  void acksAllIsAnsweredOnceTheHighWatermarkPassesTheBatch() throws Exception {
    // When
    ProduceResponseData first =
        (ProduceResponseData)
            BrokerFixture.call(produce, produceRequest("orders", 0, (short) -1, "a", "b"));
    ProduceResponseData second =
        (ProduceResponseData)
            BrokerFixture.call(produce, produceRequest("orders", 0, (short) 1, "c"));

    // Then
    assertThat(only(first).errorCode()).isZero();
    assertThat(only(first).baseOffset()).isZero();
    assertThat(only(second).baseOffset()).isEqualTo(2);
    assertThat(
            broker
                .replicaManager
                .partition(new org.apache.kafka.common.TopicPartition("orders", 0))
                .orElseThrow()
                .log()
                .highWatermark())
        .isEqualTo(3);
  }

  @Test
  void acksZeroGetsNoResponse() throws Exception {
    ApiMessage response =
        produce
            .handle(
                BrokerFixture.context(ApiKeys.PRODUCE, (short) 11),
                produceRequest("orders", 0, (short) 0, "x"))
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
    assertThat(response).isNull();
  }

  @Test
  void aFailedAcksZeroProduceFailsTheRequestSoTheConnectionCloses() {
    CompletableFuture<ApiMessage> result =
        produce
            .handle(
                BrokerFixture.context(ApiKeys.PRODUCE, (short) 11),
                produceRequest("no-such-topic", 0, (short) 0, "x"))
            .toCompletableFuture();
    assertThat(result).isCompletedExceptionally();
  }

  @Test
  void unknownTopicAndBadAcksAreReported() throws Exception {
    ProduceResponseData unknown =
        (ProduceResponseData)
            BrokerFixture.call(produce, produceRequest("nope", 0, (short) 1, "x"));
    ProduceResponseData badAcks =
        (ProduceResponseData)
            BrokerFixture.call(produce, produceRequest("orders", 0, (short) 2, "x"));
    assertThat(only(unknown).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(only(badAcks).errorCode()).isEqualTo(Errors.INVALID_REQUIRED_ACKS.code());
  }

  @Test
  void aLongPollIsCompletedByTheNextAppendWithoutHoldingAThread() throws Exception {
    // Given: a consumer waiting at the end of the log
    CompletableFuture<ApiMessage> waiting =
        fetch
            .handle(
                BrokerFixture.context(ApiKeys.FETCH, ApiKeys.FETCH.latestVersion()),
                fetchRequest("orders", 1, 0, 30_000, 1))
            .toCompletableFuture();
    assertThat(waiting).isNotDone();

    // When
    BrokerFixture.call(produce, produceRequest("orders", 1, (short) 1, "hello"));

    // Then
    FetchResponseData response = (FetchResponseData) waiting.get(5, TimeUnit.SECONDS);
    FetchResponseData.PartitionData data = response.responses().get(0).partitions().get(0);
    assertThat(data.errorCode()).isZero();
    assertThat(data.highWatermark()).isEqualTo(1);
    assertThat(data.records()).isInstanceOf(ZeroCopyRecords.class);
    ZeroCopyRecords records = (ZeroCopyRecords) data.records();
    ByteBuffer bytes = ByteBuffer.allocate(records.sizeInBytes());
    try {
      records.file().pin().read(bytes, records.position());
    } finally {
      records.file().unpin();
    }
    bytes.flip();
    var record = MemoryRecords.readableRecords(bytes).records().iterator().next();
    assertThat(StandardCharsets.UTF_8.decode(record.value()).toString()).isEqualTo("hello");
  }

  @Test
  void fetchBeyondTheEndIsOutOfRange() throws Exception {
    FetchResponseData response =
        (FetchResponseData) BrokerFixture.call(fetch, fetchRequest("orders", 0, 5, 0, 1));
    FetchResponseData.PartitionData data = response.responses().get(0).partitions().get(0);
    assertThat(data.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
    assertThat(data.highWatermark()).isZero();
  }

  @Test
  void listOffsetsAnswersEarliestLatestAndByTime() throws Exception {
    // Given
    BrokerFixture.call(produce, produceRequest("orders", 0, (short) 1, "a", "b", "c"));
    ListOffsetsHandler handler = new ListOffsetsHandler(broker.replicaManager);

    // When
    ListOffsetsRequestData request = new ListOffsetsRequestData().setReplicaId(-1);
    ListOffsetsRequestData.ListOffsetsTopic topic =
        new ListOffsetsRequestData.ListOffsetsTopic().setName("orders");
    for (long ts : new long[] {-2L, -1L, -3L, 0L}) {
      topic
          .partitions()
          .add(
              new ListOffsetsRequestData.ListOffsetsPartition()
                  .setPartitionIndex(0)
                  .setTimestamp(ts)
                  .setCurrentLeaderEpoch(-1));
    }
    request.topics().add(topic);
    ListOffsetsResponseData response =
        (ListOffsetsResponseData) BrokerFixture.call(handler, request);

    // Then
    List<ListOffsetsResponseData.ListOffsetsPartitionResponse> answers =
        response.topics().get(0).partitions();
    assertThat(answers.get(0).offset()).isZero();
    assertThat(answers.get(1).offset()).isEqualTo(3);
    assertThat(answers.get(2).offset()).isBetween(0L, 2L);
    assertThat(answers.get(3).offset()).isZero();
  }

  @Test
  void metadataCreatesAnUnknownTopicWhenAllowed() throws Exception {
    MetadataHandler handler =
        new MetadataHandler(broker.identity, broker.replicaManager, broker::autoCreate);
    MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(true);
    request.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("auto-made"));

    MetadataResponseData response = (MetadataResponseData) BrokerFixture.call(handler, request);

    MetadataResponseData.MetadataResponseTopic topic = response.topics().iterator().next();
    assertThat(topic.errorCode()).isZero();
    assertThat(topic.partitions()).hasSize(1);
    assertThat(topic.partitions().get(0).leaderId()).isEqualTo(BrokerFixture.BROKER_ID);
    assertThat(response.brokers()).hasSize(1);
    assertThat(response.clusterId()).isEqualTo("test-cluster");
  }
}
