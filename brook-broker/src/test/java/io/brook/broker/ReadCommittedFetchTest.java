package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.FetchHandler;
import io.brook.broker.api.ListOffsetsHandler;
import io.brook.broker.api.ProduceHandler;
import io.brook.broker.api.WriteTxnMarkersHandler;
import io.brook.broker.replica.DiskWork;
import io.brook.protocol.ZeroCopyRecords;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fetch and ListOffsets under read_committed, against a real log. */
class ReadCommittedFetchTest {
  private static final byte READ_UNCOMMITTED = 0;
  private static final byte READ_COMMITTED = 1;

  @TempDir Path root;
  BrokerFixture broker;
  ProduceHandler produce;
  FetchHandler fetch;
  WriteTxnMarkersHandler markers;
  ListOffsetsHandler listOffsets;

  @BeforeEach
  void start() throws Exception {
    broker = new BrokerFixture(root);
    broker.createTopic("orders", 1);
    produce = new ProduceHandler(broker.replicaManager);
    fetch = new FetchHandler(broker.replicaManager);
    markers = new WriteTxnMarkersHandler(broker.replicaManager, List.of(), DiskWork.inline());
    listOffsets = new ListOffsetsHandler(broker.replicaManager);
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  private void produce(MemoryRecords records) throws Exception {
    ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5_000);
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName("orders");
    data.partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
    request.topicData().add(data);
    BrokerFixture.call(produce, request);
  }

  private static SimpleRecord record(String value) {
    return new SimpleRecord(System.currentTimeMillis(), value.getBytes(StandardCharsets.UTF_8));
  }

  private void marker(long producerId, boolean commit) throws Exception {
    WritableTxnMarkerTopic topic = new WritableTxnMarkerTopic().setName("orders");
    topic.partitionIndexes().add(0);
    WriteTxnMarkersRequestData request = new WriteTxnMarkersRequestData();
    request
        .markers()
        .add(
            new WritableTxnMarker()
                .setProducerId(producerId)
                .setProducerEpoch((short) 0)
                .setTransactionResult(commit)
                .setCoordinatorEpoch(0)
                .setTopics(new ArrayList<>(List.of(topic))));
    BrokerFixture.call(markers, request);
  }

  private static FetchRequestData fetchRequest(byte isolation, int maxWaitMs) {
    return BrokerFixture.fetchRequest("orders", 0, 0, maxWaitMs, 1).setIsolationLevel(isolation);
  }

  private FetchResponseData.PartitionData fetchNow(byte isolation) throws Exception {
    FetchResponseData response =
        (FetchResponseData) BrokerFixture.call(fetch, fetchRequest(isolation, 0));
    return response.responses().get(0).partitions().get(0);
  }

  private static List<Long> batchOffsets(FetchResponseData.PartitionData data) throws Exception {
    List<Long> out = new ArrayList<>();
    if (data.records().sizeInBytes() == 0) {
      return out;
    }
    ZeroCopyRecords records = (ZeroCopyRecords) data.records();
    ByteBuffer bytes = ByteBuffer.allocate(records.sizeInBytes());
    try {
      records.file().pin().read(bytes, records.position());
    } finally {
      records.file().unpin();
    }
    bytes.flip();
    for (RecordBatch batch : MemoryRecords.readableRecords(bytes).batches()) {
      out.add(batch.baseOffset());
    }
    return out;
  }

  private long latest(byte isolation) throws Exception {
    ListOffsetsRequestData request =
        new ListOffsetsRequestData().setReplicaId(-1).setIsolationLevel(isolation);
    ListOffsetsRequestData.ListOffsetsTopic topic =
        new ListOffsetsRequestData.ListOffsetsTopic().setName("orders");
    topic
        .partitions()
        .add(
            new ListOffsetsRequestData.ListOffsetsPartition()
                .setPartitionIndex(0)
                .setTimestamp(-1L)
                .setCurrentLeaderEpoch(-1));
    request.topics().add(topic);
    ListOffsetsResponseData response =
        (ListOffsetsResponseData) BrokerFixture.call(listOffsets, request);
    return response.topics().get(0).partitions().get(0).offset();
  }

  @Test
  void readCommittedStopsAtTheOpenTransactionAndWakesWhenItsMarkerLands() throws Exception {
    // Given: p7 opens a transaction at 0, then a plain batch at 1
    produce(
        MemoryRecords.withTransactionalRecords(Compression.NONE, 7L, (short) 0, 0, record("t")));
    produce(MemoryRecords.withRecords(Compression.NONE, record("plain")));

    // Then
    FetchResponseData.PartitionData committed = fetchNow(READ_COMMITTED);
    assertThat(committed.highWatermark()).isEqualTo(2);
    assertThat(committed.lastStableOffset()).isZero();
    assertThat(batchOffsets(committed)).isEmpty();
    FetchResponseData.PartitionData uncommitted = fetchNow(READ_UNCOMMITTED);
    assertThat(uncommitted.lastStableOffset()).isZero();
    assertThat(uncommitted.abortedTransactions()).isNullOrEmpty();
    assertThat(batchOffsets(uncommitted)).containsExactly(0L, 1L);
    assertThat(latest(READ_COMMITTED)).isZero();
    assertThat(latest(READ_UNCOMMITTED)).isEqualTo(2);

    // When: a read_committed long poll waits, and the transaction is aborted
    CompletableFuture<ApiMessage> waiting =
        longPoll(fetchRequest(READ_COMMITTED, 5_000)).toCompletableFuture();
    assertThat(waiting).isNotDone();
    assertThat(broker.delayed.waiting(new TopicPartition("orders", 0))).as("parked").isEqualTo(1);
    marker(7L, false);

    // Then
    FetchResponseData.PartitionData woken =
        ((FetchResponseData) waiting.get(5, TimeUnit.SECONDS))
            .responses()
            .get(0)
            .partitions()
            .get(0);
    assertThat(woken.lastStableOffset()).isEqualTo(3);
    assertThat(batchOffsets(woken)).containsExactly(0L, 1L, 2L);
    assertThat(woken.abortedTransactions())
        .containsExactly(
            new FetchResponseData.AbortedTransaction().setProducerId(7L).setFirstOffset(0L));
    assertThat(latest(READ_COMMITTED)).isEqualTo(3);
  }

  private java.util.concurrent.CompletionStage<ApiMessage> longPoll(FetchRequestData request) {
    return fetch.handle(
        BrokerFixture.context(ApiKeys.FETCH, ApiKeys.FETCH.latestVersion()), request);
  }
}
