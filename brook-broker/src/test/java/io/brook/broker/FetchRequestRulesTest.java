package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.FetchHandler;
import io.brook.broker.api.ProduceHandler;
import io.brook.protocol.ZeroCopyRecords;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How Fetch reads its request's fields, checked against Kafka's rules: duplicates, {@code
 * max_bytes} and {@code partition_max_bytes} with the first-batch exception (KIP-74), {@code
 * min_bytes} above {@code max_bytes}, odd {@code max_wait_ms} and {@code isolation_level} values.
 */
class FetchRequestRulesTest {
  /** Value bytes per record: a batch of one record is a little over this. */
  private static final int VALUE_BYTES = 1_000;

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

  /** Appends {@code batches} batches of one {@value #VALUE_BYTES}-byte record each. */
  private void append(int partition, int batches) throws Exception {
    for (int i = 0; i < batches; i++) {
      ProduceRequestData request = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(5_000);
      ProduceRequestData.TopicProduceData topic =
          new ProduceRequestData.TopicProduceData().setName("orders");
      topic
          .partitionData()
          .add(
              new ProduceRequestData.PartitionProduceData()
                  .setIndex(partition)
                  .setRecords(
                      MemoryRecords.withRecords(
                          Compression.NONE, new SimpleRecord(new byte[VALUE_BYTES]))));
      request.topicData().add(topic);
      BrokerFixture.call(produce, request);
    }
  }

  private static FetchRequestData request(int maxWaitMs, int minBytes, int maxBytes) {
    return new FetchRequestData()
        .setMaxWaitMs(maxWaitMs)
        .setMinBytes(minBytes)
        .setMaxBytes(maxBytes)
        .setReplicaId(-1);
  }

  private static FetchRequestData.FetchTopic topic(FetchRequestData request) {
    FetchRequestData.FetchTopic topic =
        new FetchRequestData.FetchTopic().setTopic("orders").setTopicId(Uuid.ZERO_UUID);
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
                .setPartitionMaxBytes(maxBytes)
                .setCurrentLeaderEpoch(-1));
  }

  /** Calls Fetch and returns its answer only if it was given at once, without parking. */
  private FetchResponseData answeredAtOnce(FetchRequestData request) throws Exception {
    CompletableFuture<ApiMessage> answer =
        fetch
            .handle(BrokerFixture.context(ApiKeys.FETCH, fetch.maxVersion()), request)
            .toCompletableFuture();
    assertThat(answer).as("answered without waiting").isDone();
    return (FetchResponseData) answer.get();
  }

  /** The batches sent for a partition, reading the bytes the response points at. */
  private static List<RecordBatch> batches(FetchResponseData.PartitionData data) {
    List<RecordBatch> out = new ArrayList<>();
    if (data.records().sizeInBytes() == 0) {
      return out;
    }
    ZeroCopyRecords records = (ZeroCopyRecords) data.records();
    ByteBuffer bytes = ByteBuffer.allocate(records.sizeInBytes());
    try {
      records.file().pin().read(bytes, records.position());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      records.file().unpin();
    }
    bytes.flip();
    MemoryRecords.readableRecords(bytes).batches().forEach(out::add);
    return out;
  }

  private static int batchSize() {
    return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[VALUE_BYTES]))
        .sizeInBytes();
  }

  @Test
  void aPartitionListedTwiceIsAnsweredOnceWithItsLastListingInItsFirstPlace() throws Exception {
    // Given: five batches on partition 0, one on partition 1
    append(0, 5);
    append(1, 1);

    // When: partition 0 is asked for at offset 0, then 1, then 0 again at offset 3; then the topic
    // is listed a second time with partition 0 at offset 4
    FetchRequestData request = request(0, 1, 1 << 20);
    FetchRequestData.FetchTopic first = topic(request);
    partition(first, 0, 0, 1 << 20);
    partition(first, 1, 0, 1 << 20);
    partition(first, 0, 3, 1 << 20);
    FetchRequestData.FetchTopic again = topic(request);
    partition(again, 0, 4, 1 << 20);
    FetchResponseData response = answeredAtOnce(request);

    // Then: one topic entry, each partition once, partition 0 read from the last offset asked
    assertThat(response.responses()).hasSize(1);
    List<FetchResponseData.PartitionData> partitions = response.responses().get(0).partitions();
    assertThat(partitions)
        .extracting(FetchResponseData.PartitionData::partitionIndex)
        .containsExactly(0, 1);
    assertThat(batches(partitions.get(0))).extracting(RecordBatch::baseOffset).containsExactly(4L);
    assertThat(batches(partitions.get(1))).hasSize(1);
  }

  @Test
  void zeroOrNegativeMaxBytesSendsOnlyTheFirstBatch() throws Exception {
    // Given
    append(0, 3);
    append(1, 3);

    for (int maxBytes : new int[] {0, -1}) {
      // When
      FetchRequestData request = request(0, 1, maxBytes);
      FetchRequestData.FetchTopic topic = topic(request);
      partition(topic, 0, 0, 1 << 20);
      partition(topic, 1, 0, 1 << 20);
      List<FetchResponseData.PartitionData> partitions =
          answeredAtOnce(request).responses().get(0).partitions();

      // Then: the first partition's first batch (KIP-74), nothing else
      assertThat(batches(partitions.get(0))).as("max_bytes %d", maxBytes).hasSize(1);
      assertThat(partitions.get(0).records().sizeInBytes()).isEqualTo(batchSize());
      assertThat(partitions.get(1).records().sizeInBytes()).as("max_bytes %d", maxBytes).isZero();
    }
  }

  @Test
  void theFirstBatchIsSentWholePastBothLimitsAndNothingMoreFits() throws Exception {
    // Given
    append(0, 3);
    append(1, 3);

    // When: limits far below one batch
    FetchRequestData request = request(0, 1, 10);
    FetchRequestData.FetchTopic topic = topic(request);
    partition(topic, 0, 0, 10);
    partition(topic, 1, 0, 10);
    List<FetchResponseData.PartitionData> partitions =
        answeredAtOnce(request).responses().get(0).partitions();

    // Then
    assertThat(partitions.get(0).records().sizeInBytes()).isEqualTo(batchSize());
    assertThat(partitions.get(1).records().sizeInBytes()).isZero();
  }

  @Test
  void partitionAndResponseLimitsHoldAndNoPartOfABatchIsSent() throws Exception {
    // Given: batches of about 1 KB on both partitions
    append(0, 3);
    append(1, 3);
    int batch = batchSize();

    // When: partition 0 may take two and a half batches, the response a little over three
    FetchRequestData request = request(0, 1, 3 * batch + 100);
    FetchRequestData.FetchTopic topic = topic(request);
    partition(topic, 0, 0, 2 * batch + batch / 2);
    partition(topic, 1, 0, 1 << 20);
    List<FetchResponseData.PartitionData> partitions =
        answeredAtOnce(request).responses().get(0).partitions();

    // Then: partition 0 stops at its own limit; partition 1 gets what is left of the response,
    // in which its first batch does not fit, so nothing rather than a useless part of a batch
    int first = partitions.get(0).records().sizeInBytes();
    assertThat(first).isLessThanOrEqualTo(2 * batch + batch / 2);
    assertThat(batches(partitions.get(0))).hasSize(2);
    assertThat(partitions.get(1).records().sizeInBytes()).isZero();

    // When: the response has room for partition 1's first batch
    request.setMaxBytes(first + batch);
    partitions = answeredAtOnce(request).responses().get(0).partitions();

    // Then: it gets exactly that batch
    assertThat(partitions.get(1).records().sizeInBytes()).isEqualTo(batch);
  }

  @Test
  void fetchMaxBytesCapsAConsumersResponseWhateverItsMaxBytes() throws Exception {
    // Given: a broker whose fetch.max.bytes is two and a half batches
    append(0, 5);
    int batch = batchSize();
    fetch =
        new FetchHandler(
            broker.replicaManager,
            io.brook.broker.replica.ReadReplicaSelector.LEADER,
            2 * batch + batch / 2);

    // When: a consumer asks for a gibibyte
    FetchRequestData request = request(0, 1, 1 << 30);
    partition(topic(request), 0, 0, 1 << 30);
    FetchResponseData response = answeredAtOnce(request);

    // Then: it gets what fetch.max.bytes allows
    assertThat(batches(response.responses().get(0).partitions().get(0))).hasSize(2);
  }

  @Test
  void minBytesAboveMaxBytesIsSatisfiedByAFullResponse() throws Exception {
    // Given: more data than max_bytes allows
    append(0, 3);

    // When: min_bytes could never fit in one response and the wait is long
    FetchRequestData request = request(600_000, 10 << 20, 2 * batchSize());
    partition(topic(request), 0, 0, 1 << 20);
    FetchResponseData response = answeredAtOnce(request);

    // Then: a full response is enough (Kafka counts min_bytes up to max_bytes)
    assertThat(batches(response.responses().get(0).partitions().get(0))).hasSize(2);
  }

  @Test
  void aNegativeMaxWaitAnswersAtOnce() throws Exception {
    // Given: nothing to read
    FetchRequestData request = request(-1, 1, 1 << 20);
    partition(topic(request), 0, 0, 1 << 20);

    // When / Then
    FetchResponseData response = answeredAtOnce(request);
    assertThat(response.responses().get(0).partitions().get(0).records().sizeInBytes()).isZero();
  }

  @Test
  void aNegativeMinBytesAnswersAtOnce() throws Exception {
    FetchRequestData request = request(30_000, -5, 1 << 20);
    partition(topic(request), 0, 0, 1 << 20);

    FetchResponseData response = answeredAtOnce(request);

    assertThat(response.responses().get(0).partitions().get(0).errorCode()).isZero();
  }

  @Test
  void anUnknownIsolationLevelFailsTheRequest() {
    // Given
    FetchRequestData request = request(0, 1, 1 << 20).setIsolationLevel((byte) 2);
    partition(topic(request), 0, 0, 1 << 20);

    // When
    CompletableFuture<ApiMessage> answer =
        fetch
            .handle(BrokerFixture.context(ApiKeys.FETCH, fetch.maxVersion()), request)
            .toCompletableFuture();

    // Then: the network layer answers it with Kafka's error response for the whole request
    Assertions.assertThatThrownBy(answer::get)
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(InvalidRequestException.class);
  }
}
