package io.brook.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.broker.api.KafkaApi;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.RequestContext;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.InterNodeClientConfig;
import io.brook.protocol.client.InterNodeEventLoops;
import io.brook.protocol.network.KafkaNetworkServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The verifier against a real network server standing in for a remote transaction coordinator,
 * whose answers are held until the test releases them: batching per coordinator, one request in
 * flight, fencing of an older epoch, and the local path.
 */
@Timeout(60)
class TxnPartitionVerifierTest {
  private static final String LISTENER = "PLAINTEXT";
  private static final String STATE_TOPIC = "__transaction_state";
  private static final Uuid STATE_TOPIC_ID = Uuid.randomUuid();
  private static final TopicPartition T0 = new TopicPartition("t", 0);
  private static final TopicPartition T1 = new TopicPartition("t", 1);

  /**
   * A coordinator that knows t-0 in every transaction and nothing else, answering each request only
   * when released.
   */
  private static final class HeldCoordinator extends KafkaApi {
    final List<AddPartitionsToTxnRequestData> received = new CopyOnWriteArrayList<>();
    final List<CompletableFuture<ApiMessage>> held = new CopyOnWriteArrayList<>();

    HeldCoordinator() {
      super(ApiKeys.ADD_PARTITIONS_TO_TXN);
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
      AddPartitionsToTxnRequestData request = (AddPartitionsToTxnRequestData) message;
      received.add(request);
      CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
      held.add(answer);
      return answer.thenApply(ignored -> answer(request));
    }

    void releaseAll() {
      held.forEach(f -> f.complete(null));
    }

    static AddPartitionsToTxnResponseData answer(AddPartitionsToTxnRequestData request) {
      AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData();
      for (AddPartitionsToTxnTransaction txn : request.transactions()) {
        AddPartitionsToTxnResult result =
            new AddPartitionsToTxnResult().setTransactionalId(txn.transactionalId());
        for (var topic : txn.topics()) {
          AddPartitionsToTxnTopicResult topicResult =
              new AddPartitionsToTxnTopicResult().setName(topic.name());
          for (int p : topic.partitions()) {
            Errors error = p == 0 || !txn.verifyOnly() ? Errors.NONE : Errors.TRANSACTION_ABORTABLE;
            topicResult
                .resultsByPartition()
                .add(
                    new AddPartitionsToTxnPartitionResult()
                        .setPartitionIndex(p)
                        .setPartitionErrorCode(error.code()));
          }
          result.topicResults().add(topicResult);
        }
        response.resultsByTransaction().add(result);
      }
      return response;
    }
  }

  private HeldCoordinator remote;
  private KafkaNetworkServer server;
  private InterNodeEventLoops loops;
  private TxnPartitionVerifier verifier;
  private final List<AddPartitionsToTxnRequestData> localCalls = new ArrayList<>();

  @BeforeEach
  void setUp() {
    remote = new HeldCoordinator();
    server =
        KafkaNetworkServer.start(
            NetworkConfig.builder().listener(LISTENER, "127.0.0.1", 0).numNetworkThreads(1).build(),
            ApiRegistry.of(remote));
    loops = InterNodeEventLoops.start(1);
    InterNodeClient client =
        new InterNodeClient(
            loops,
            InterNodeClientConfig.builder("brook-txn-verifier").requestTimeoutMs(10_000).build());
    MetadataImage image = image(server.boundPort(LISTENER));
    // Transactional ids starting with "local" map to partition 1, led by this broker (1); the
    // others to partition 0, led by broker 2 (the server above).
    verifier =
        new TxnPartitionVerifier(
            STATE_TOPIC,
            id -> id.startsWith("local") ? 1 : 0,
            (info, request) -> {
              localCalls.add(request);
              return CompletableFuture.completedFuture(HeldCoordinator.answer(request));
            },
            (short) 5,
            () -> image,
            1,
            LISTENER,
            client,
            TxnPartitionVerifier.ConcurrentRetry.NONE);
  }

  @AfterEach
  void tearDown() {
    verifier.close();
    server.close();
    loops.close();
  }

  private static MetadataImage image(int port) {
    List<MetadataRecord> records = new ArrayList<>();
    records.add(
        new RegisterBrokerRecord(
            2,
            Uuid.randomUuid(),
            1,
            List.of(new BrokerEndpoint(LISTENER, "127.0.0.1", port, LISTENER)),
            Optional.empty(),
            false));
    records.add(new TopicRecord(STATE_TOPIC, STATE_TOPIC_ID));
    records.add(new PartitionRecord(STATE_TOPIC_ID, 0, List.of(2), List.of(2), 2, 0, 0));
    records.add(new PartitionRecord(STATE_TOPIC_ID, 1, List.of(1), List.of(1), 1, 0, 0));
    return MetadataImage.EMPTY.apply(records, records.size() - 1);
  }

  /** The coordinator's answer to {@code request} while the previous transaction still ends. */
  private static AddPartitionsToTxnResponseData busy(AddPartitionsToTxnRequestData request) {
    AddPartitionsToTxnResponseData answer = HeldCoordinator.answer(request);
    answer
        .resultsByTransaction()
        .forEach(
            txn ->
                txn.topicResults()
                    .forEach(
                        topic ->
                            topic
                                .resultsByPartition()
                                .forEach(
                                    p ->
                                        p.setPartitionErrorCode(
                                            Errors.CONCURRENT_TRANSACTIONS.code()))));
    return answer;
  }

  /**
   * A local coordinator that answers CONCURRENT_TRANSACTIONS for every partition to its first
   * {@code busyAnswers} requests (the producer's previous transaction is still ending), then adds
   * them.
   */
  private TxnPartitionVerifier retrying(
      ManualScheduler scheduler, int busyAnswers, List<AddPartitionsToTxnRequestData> asked) {
    return retrying(
        scheduler,
        (info, request) -> {
          asked.add(request);
          return CompletableFuture.completedFuture(
              asked.size() <= busyAnswers ? busy(request) : HeldCoordinator.answer(request));
        });
  }

  /**
   * A verifier asking {@code local}, retrying every 20 ms for up to 100 ms on {@code scheduler}.
   */
  private TxnPartitionVerifier retrying(
      ManualScheduler scheduler, TxnPartitionVerifier.LocalCoordinator local) {
    return new TxnPartitionVerifier(
        STATE_TOPIC,
        id -> 1,
        local,
        (short) 5,
        () -> image(server.boundPort(LISTENER)),
        1,
        LISTENER,
        new InterNodeClient(loops, InterNodeClientConfig.builder("retrying").build()),
        new TxnPartitionVerifier.ConcurrentRetry(
            scheduler, scheduler.time()::milliseconds, 20, 100));
  }

  @Test
  void aV2ProduceAsksAgainWhileTheCoordinatorEndsThePreviousTransaction() throws Exception {
    ManualScheduler scheduler = new ManualScheduler(new MockTime());
    List<AddPartitionsToTxnRequestData> asked = new ArrayList<>();
    try (TxnPartitionVerifier v = retrying(scheduler, 2, asked)) {
      var added = v.addForProduce("local-a", 10L, (short) 1, List.of(T0, T1));
      assertThat(added).isNotDone();
      assertThat(asked).hasSize(1);

      scheduler.time().sleep(20);
      assertThat(asked).hasSize(2);
      assertThat(added).isNotDone();
      scheduler.time().sleep(20);

      assertThat(added.get(1, TimeUnit.SECONDS)).isEmpty();
      assertThat(asked).hasSize(3).allMatch(r -> !r.transactions().find("local-a").verifyOnly());
      assertThat(v.concurrentTransactionsRetries()).isEqualTo(2);
      assertThat(v.concurrentTransactionsReturned()).isZero();
    }
  }

  @Test
  void anAnswerTheCoordinatorHeldForTheWholeBackoffIsFollowedByTheNextAskAtOnce() throws Exception {
    ManualScheduler scheduler = new ManualScheduler(new MockTime());
    List<AddPartitionsToTxnRequestData> asked = new CopyOnWriteArrayList<>();
    List<CompletableFuture<AddPartitionsToTxnResponseData>> answers = new CopyOnWriteArrayList<>();
    try (TxnPartitionVerifier v =
        retrying(
            scheduler,
            (info, request) -> {
              asked.add(request);
              CompletableFuture<AddPartitionsToTxnResponseData> answer = new CompletableFuture<>();
              answers.add(answer);
              return answer;
            })) {
      var added = v.addForProduce("local-a", 10L, (short) 1, List.of(T0));

      // Given: the coordinator held the first ask for the whole backoff, then answered it busy
      scheduler.time().sleep(20);
      answers.get(0).complete(busy(asked.get(0)));

      // Then: the leader asks again at once, not another backoff later
      scheduler.runDue();
      assertThat(asked).hasSize(2);

      // When: that ask is answered busy at once
      answers.get(1).complete(busy(asked.get(1)));

      // Then: the next one waits for the backoff, so the asks stay one per backoff at most
      scheduler.runDue();
      assertThat(asked).hasSize(2);
      scheduler.time().sleep(19);
      assertThat(asked).hasSize(2);
      scheduler.time().sleep(1);
      assertThat(asked).hasSize(3);
      answers.get(2).complete(HeldCoordinator.answer(asked.get(2)));
      assertThat(added.get(1, TimeUnit.SECONDS)).isEmpty();
      assertThat(v.concurrentTransactionsRetries()).isEqualTo(2);
      assertThat(v.concurrentTransactionsReturned()).isZero();
    }
  }

  @Test
  void aV2ProduceGetsConcurrentTransactionsOnceTheRetryTimeIsOver() throws Exception {
    ManualScheduler scheduler = new ManualScheduler(new MockTime());
    List<AddPartitionsToTxnRequestData> asked = new ArrayList<>();
    try (TxnPartitionVerifier v = retrying(scheduler, Integer.MAX_VALUE, asked)) {
      var added = v.addForProduce("local-a", 10L, (short) 1, List.of(T0));
      for (int i = 0; i < 10 && !added.isDone(); i++) {
        scheduler.time().sleep(20);
      }

      assertThat(added.get(1, TimeUnit.SECONDS))
          .isEqualTo(Map.of(T0, Errors.CONCURRENT_TRANSACTIONS));
      assertThat(asked).as("asked at 0, 20, 40, 60, 80 and 100 ms").hasSize(6);
      assertThat(v.concurrentTransactionsRetries()).isEqualTo(5);
      assertThat(v.concurrentTransactionsReturned()).isEqualTo(1);
    }
  }

  @Test
  void verifyingForAnOlderProduceNeverAsksAgain() throws Exception {
    ManualScheduler scheduler = new ManualScheduler(new MockTime());
    List<AddPartitionsToTxnRequestData> asked = new ArrayList<>();
    try (TxnPartitionVerifier v = retrying(scheduler, 1, asked)) {
      var verified = v.verify("local-a", 10L, (short) 1, List.of(T0), true);

      assertThat(verified.get(1, TimeUnit.SECONDS))
          .isEqualTo(Map.of(T0, Errors.CONCURRENT_TRANSACTIONS));
      assertThat(scheduler.pending()).isEmpty();
    }
  }

  @Test
  void transactionsArrivingWhileARequestIsInFlightGoTogetherInTheNext() throws Exception {
    // Given: one request in flight to the coordinator
    var first = verifier.verify("a", 10L, (short) 0, List.of(T0), true);
    await().atMost(Duration.ofSeconds(10)).until(() -> remote.received.size() == 1);

    // When: two more transactions and a second request of "b" (same producer and epoch) wait
    var second = verifier.verify("b", 11L, (short) 0, List.of(T0), true);
    var third = verifier.verify("c", 12L, (short) 0, List.of(T1), true);
    var secondAgain = verifier.verify("b", 11L, (short) 0, List.of(T1), true);
    assertThat(remote.received).hasSize(1);
    remote.releaseAll();

    // Then: they went in one request, "b" once with both partitions
    assertThat(first.get(10, TimeUnit.SECONDS)).isEmpty();
    await().atMost(Duration.ofSeconds(10)).until(() -> remote.received.size() == 2);
    AddPartitionsToTxnRequestData batched = remote.received.get(1);
    assertThat(batched.transactions())
        .extracting(t -> t.transactionalId())
        .containsExactly("b", "c");
    assertThat(batched.transactions().find("b").topics().find("t").partitions())
        .containsExactlyInAnyOrder(0, 1);
    remote.releaseAll();
    assertThat(second.get(10, TimeUnit.SECONDS)).containsOnlyKeys(T1);
    assertThat(secondAgain.get(10, TimeUnit.SECONDS))
        .isEqualTo(Map.of(T1, Errors.TRANSACTION_ABORTABLE));
    assertThat(third.get(10, TimeUnit.SECONDS)).isEqualTo(Map.of(T1, Errors.TRANSACTION_ABORTABLE));
  }

  @Test
  void aNewerEpochFencesTheWaitingOlderOne() throws Exception {
    verifier.verify("a", 10L, (short) 0, List.of(T0), true);
    await().atMost(Duration.ofSeconds(10)).until(() -> remote.received.size() == 1);

    var older = verifier.verify("z", 20L, (short) 3, List.of(T0), true);
    var newer = verifier.verify("z", 20L, (short) 4, List.of(T0), true);
    var oldest = verifier.verify("z", 20L, (short) 2, List.of(T0), true);

    assertThat(older.get(10, TimeUnit.SECONDS))
        .isEqualTo(Map.of(T0, Errors.INVALID_PRODUCER_EPOCH));
    assertThat(oldest.get(10, TimeUnit.SECONDS))
        .isEqualTo(Map.of(T0, Errors.INVALID_PRODUCER_EPOCH));
    remote.releaseAll();
    await().atMost(Duration.ofSeconds(10)).until(() -> remote.received.size() == 2);
    remote.releaseAll();
    assertThat(newer.get(10, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void thisBrokersOwnCoordinatorIsCalledDirectly() throws Exception {
    var verified = verifier.verify("local-1", 30L, (short) 0, Set.of(T0, T1), false);

    assertThat(verified.get(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(localCalls).hasSize(1);
    assertThat(localCalls.get(0).transactions().find("local-1").verifyOnly()).isFalse();
    assertThat(remote.received).isEmpty();
  }

  @Test
  void anUnreachableCoordinatorIsANetworkError() throws Exception {
    server.close();

    var verified = verifier.verify("a", 10L, (short) 0, List.of(T0), true);

    assertThat(verified.get(30, TimeUnit.SECONDS)).isEqualTo(Map.of(T0, Errors.NETWORK_EXCEPTION));
  }
}
