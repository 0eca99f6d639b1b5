package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.ProduceHandler;
import io.brook.broker.api.WriteTxnMarkersHandler;
import io.brook.broker.replica.DiskWork;
import io.brook.broker.txn.TxnPartitionVerifier;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.InterNodeClientConfig;
import io.brook.protocol.client.InterNodeEventLoops;
import io.brook.storage.log.PartitionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce with transaction verification on a real log, the coordinator's answer held by the test:
 * the batch waits for it, and a transaction marker written in between makes the late batch fail
 * instead of opening a transaction nobody ends.
 */
class TransactionVerificationProduceTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final long PID = 42L;

  @TempDir Path root;
  BrokerFixture broker;
  InterNodeEventLoops loops;
  TxnPartitionVerifier verifier;
  ProduceHandler produce;
  final List<CompletableFuture<Void>> heldAnswers = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    broker = new BrokerFixture(root);
    broker.createTopic("orders", 1);
    broker.createTopic("__transaction_state", 1); // led by this broker: the local coordinator
    loops = InterNodeEventLoops.start(1);
    verifier =
        new TxnPartitionVerifier(
            "__transaction_state",
            id -> 0,
            (info, request) -> {
              CompletableFuture<Void> release = new CompletableFuture<>();
              heldAnswers.add(release);
              return release.thenApply(ignored -> inTransaction(request));
            },
            (short) 5,
            broker.replicaManager::image,
            BrokerFixture.BROKER_ID,
            "PLAINTEXT",
            new InterNodeClient(loops, InterNodeClientConfig.builder("test").build()),
            TxnPartitionVerifier.ConcurrentRetry.NONE);
    produce = new ProduceHandler(broker.replicaManager, DiskWork.inline(), Optional.of(verifier));
  }

  @AfterEach
  void stop() throws Exception {
    verifier.close();
    loops.close();
    broker.close();
  }

  /** The coordinator's answer: every asked partition is in the transaction. */
  private static AddPartitionsToTxnResponseData inTransaction(
      AddPartitionsToTxnRequestData request) {
    AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData();
    for (var txn : request.transactions()) {
      AddPartitionsToTxnResult result =
          new AddPartitionsToTxnResult().setTransactionalId(txn.transactionalId());
      for (var topic : txn.topics()) {
        AddPartitionsToTxnTopicResult t = new AddPartitionsToTxnTopicResult().setName(topic.name());
        topic
            .partitions()
            .forEach(
                p ->
                    t.resultsByPartition()
                        .add(new AddPartitionsToTxnPartitionResult().setPartitionIndex(p)));
        result.topicResults().add(t);
      }
      response.resultsByTransaction().add(result);
    }
    return response;
  }

  private CompletionStage<ApiMessage> produceTransactional(int sequence) {
    MemoryRecords records =
        MemoryRecords.withTransactionalRecords(
            Compression.NONE,
            PID,
            (short) 0,
            sequence,
            new SimpleRecord(System.currentTimeMillis(), "v".getBytes(StandardCharsets.UTF_8)));
    ProduceRequestData request =
        new ProduceRequestData().setAcks((short) 1).setTimeoutMs(5_000).setTransactionalId("t");
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName("orders");
    data.partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
    request.topicData().add(data);
    return produce.handle(BrokerFixture.context(ApiKeys.PRODUCE, (short) 11), request);
  }

  private static Errors error(ApiMessage response) {
    return Errors.forCode(
        ((ProduceResponseData) response)
            .responses()
            .iterator()
            .next()
            .partitionResponses()
            .get(0)
            .errorCode());
  }

  private PartitionLog log() {
    return broker.logManager.getLog(ORDERS_0).orElseThrow();
  }

  @Test
  void theFirstBatchWaitsForTheCoordinatorThenTheRestNeedNoQuestion() throws Exception {
    CompletableFuture<ApiMessage> first = produceTransactional(0).toCompletableFuture();
    assertThat(first).isNotDone();
    assertThat(log().logEndOffset()).isZero();

    heldAnswers.forEach(f -> f.complete(null));

    assertThat(error(first.get(10, TimeUnit.SECONDS))).isEqualTo(Errors.NONE);
    CompletableFuture<ApiMessage> second = produceTransactional(1).toCompletableFuture();
    assertThat(second).as("the transaction is open here").isDone();
    assertThat(error(second.get())).isEqualTo(Errors.NONE);
    assertThat(heldAnswers).hasSize(1);
    assertThat(log().logEndOffset()).isEqualTo(2);
  }

  @Test
  void aMarkerWrittenWhileTheCoordinatorAnswersFailsTheWaitingBatch() throws Exception {
    // Given: the first batch waits for the coordinator
    CompletableFuture<ApiMessage> late = produceTransactional(0).toCompletableFuture();

    // When: the coordinator aborts the transaction (its marker lands first), then answers
    WritableTxnMarkerTopic topic = new WritableTxnMarkerTopic().setName("orders");
    topic.partitionIndexes().add(0);
    WriteTxnMarkersRequestData abort = new WriteTxnMarkersRequestData();
    abort
        .markers()
        .add(
            new WritableTxnMarker()
                .setProducerId(PID)
                .setProducerEpoch((short) 0)
                .setTransactionResult(false)
                .setCoordinatorEpoch(0)
                .setTopics(new ArrayList<>(List.of(topic))));
    BrokerFixture.call(
        new WriteTxnMarkersHandler(broker.replicaManager, List.of(), DiskWork.inline()), abort);
    heldAnswers.forEach(f -> f.complete(null));

    // Then: the batch would reopen a transaction nobody ends
    assertThat(error(late.get(10, TimeUnit.SECONDS))).isEqualTo(Errors.INVALID_TXN_STATE);
    assertThat(log().logEndOffset()).as("the marker only").isEqualTo(1);
    assertThat(log().lastStableOffset()).isEqualTo(1);
  }

  @Test
  void batchesArrivingWhileTheFirstWaitsAreAppendedInTheOrderTheyCame() throws Exception {
    // Given: two pipelined requests of one producer, both waiting for the coordinator
    CompletableFuture<ApiMessage> first = produceTransactional(0).toCompletableFuture();
    CompletableFuture<ApiMessage> second = produceTransactional(1).toCompletableFuture();
    assertThat(heldAnswers).hasSize(2);

    // When: the coordinator answers the second request first
    heldAnswers.get(1).complete(null);
    assertThat(second).as("queued behind the first").isNotDone();
    heldAnswers.get(0).complete(null);

    // Then: both are appended, in sequence order (the second alone would be out of order)
    assertThat(error(first.get(10, TimeUnit.SECONDS))).isEqualTo(Errors.NONE);
    assertThat(error(second.get(10, TimeUnit.SECONDS))).isEqualTo(Errors.NONE);
    assertThat(log().logEndOffset()).isEqualTo(2);
  }
}
