package io.brook.broker;

import static io.brook.broker.BrokerFixture.context;
import static io.brook.broker.BrokerFixture.fetchRequest;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.DeleteRecordsHandler;
import io.brook.broker.api.FetchHandler;
import io.brook.broker.api.ProduceHandler;
import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.fetch.FetchSessions;
import io.brook.broker.replica.Followers;
import io.brook.broker.replica.IsrChangeSender;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.PartitionState;
import io.brook.broker.replica.ReadReplicaSelector;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RegisterBrokerRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.storage.log.LogConfig;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's replication timing on a simulated clock: broker 1 leads a partition replicated to
 * brokers 2 and 3, whose fetches the test sends through the real Fetch handler. Every timer (the
 * ISR shrink check, the deadlines of parked produces and fetches) runs on a {@link
 * ManualScheduler}, so each assertion names the exact millisecond something happens; nothing sleeps
 * and no wall-clock wait decides an outcome.
 */
class DeterministicReplicationTest {
  private static final long LAG_MS = 30_000;
  private static final Uuid TOPIC_ID = Uuid.fromString("ZCbxCzGbTpmOIVbVk2Uq4Q");
  private static final TopicPartition TP = new TopicPartition("t", 0);
  private static final List<Integer> ALL = List.of(1, 2, 3);

  @TempDir Path dir;
  private final MockTime time = new MockTime();
  private final ManualScheduler scheduler = new ManualScheduler(time);
  private final ScheduledExecutorService logTasks = Executors.newSingleThreadScheduledExecutor();
  private final List<List<Integer>> proposedIsrs = new ArrayList<>();
  private final List<CompletableFuture<PartitionState>> isrAnswers = new ArrayList<>();
  private DelayedOperations delayed;
  private LogManager logManager;
  private ReplicaManager replicas;
  private ProduceHandler produce;
  private FetchHandler fetch;
  private final FetchSessions sessions = FetchSessions.withDefaults();

  @BeforeEach
  void setUp() throws Exception {
    delayed = new DelayedOperations(scheduler);
    logManager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(dir)), topic -> LogConfig.defaults(), time, logTasks);
    IsrChangeSender controller =
        (topicId, partition, leaderEpoch, partitionEpoch, newIsr) -> {
          proposedIsrs.add(newIsr.stream().map(IsrChangeSender.Member::brokerId).toList());
          CompletableFuture<PartitionState> answer = new CompletableFuture<>();
          isrAnswers.add(answer);
          return answer;
        };
    replicas =
        new ReplicaManager(
            1,
            logManager,
            delayed,
            (image, topic) -> LogConfig.defaults(),
            Followers.NONE,
            controller,
            LAG_MS,
            time,
            scheduler);
    replicas.applyMetadata(image());
    replicas.startIsrShrinkTask();
    produce = new ProduceHandler(replicas);
    fetch = new FetchHandler(replicas, sessions);
  }

  @AfterEach
  void tearDown() throws Exception {
    replicas.stopIsrShrinkTask();
    delayed.close();
    logManager.close();
    logTasks.shutdownNow();
  }

  /** Brokers 1, 2 and 3 registered; t-0 led by 1 with all three in sync. */
  private static MetadataImage image() {
    List<MetadataRecord> records = new ArrayList<>();
    for (int id : ALL) {
      records.add(
          new RegisterBrokerRecord(
              id,
              Uuid.randomUuid(),
              brokerEpoch(id),
              List.of(new BrokerEndpoint("PLAINTEXT", "localhost", 9090 + id, "PLAINTEXT")),
              Optional.empty(),
              false));
    }
    records.add(new TopicRecord("t", TOPIC_ID));
    records.add(new PartitionRecord(TOPIC_ID, 0, ALL, ALL, 1, 0, 0));
    return MetadataImage.EMPTY.apply(records, records.size() - 1);
  }

  private static long brokerEpoch(int brokerId) {
    return 10 + brokerId;
  }

  private Partition leader() {
    return replicas.partition(TP).orElseThrow();
  }

  /** Broker {@code replicaId}'s fetch from {@code offset}, answered at once (no wait). */
  private FetchResponseData.PartitionData followerFetch(int replicaId, long offset) {
    FetchRequestData request = fetchRequest("t", 0, offset, 0, 1);
    request.replicaState().setReplicaId(replicaId).setReplicaEpoch(brokerEpoch(replicaId));
    CompletableFuture<ApiMessage> answer = call(fetch, request);
    assertThat(answer).as("a fetch that may not wait is answered at once").isDone();
    return ((FetchResponseData) answer.join()).responses().get(0).partitions().get(0);
  }

  private CompletableFuture<ApiMessage> call(
      io.brook.protocol.ApiHandler handler, ApiMessage request) {
    CompletionStage<ApiMessage> stage =
        handler.handle(context(handler.apiKey(), handler.maxVersion()), request);
    return stage.toCompletableFuture();
  }

  /** A Produce of one record to t-0, stamped by the simulated clock, waiting up to 5 s. */
  private ProduceRequestData produceRequest(short acks) {
    ProduceRequestData request = new ProduceRequestData().setAcks(acks).setTimeoutMs(5_000);
    ProduceRequestData.TopicProduceData data =
        new ProduceRequestData.TopicProduceData().setName("t");
    data.partitionData()
        .add(
            new ProduceRequestData.PartitionProduceData()
                .setIndex(0)
                .setRecords(
                    MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(
                            time.milliseconds(), "a".getBytes(StandardCharsets.UTF_8)))));
    request.topicData().add(data);
    return request;
  }

  private static ProduceResponseData.PartitionProduceResponse produced(
      CompletableFuture<ApiMessage> answer) {
    return ((ProduceResponseData) answer.join())
        .responses()
        .iterator()
        .next()
        .partitionResponses()
        .get(0);
  }

  @Test
  void aFollowerLeavesTheIsrAtTheFirstShrinkCheckAfterTheLagTimeWithoutACaughtUpFetch() {
    // Given: both followers caught up at t=0, then a write that broker 2 fetches every second
    // and broker 3 never does
    assertThat(ReplicaManager.isrShrinkCheckMs(LAG_MS)).isEqualTo(15_000);
    followerFetch(2, 0);
    followerFetch(3, 0);
    assertThat(produced(call(produce, produceRequest((short) 1))).errorCode()).isZero();

    // When: time passes to the check at exactly the lag time after broker 3's last caught-up fetch
    for (int second = 1; second <= 30; second++) {
      time.sleep(1_000);
      followerFetch(2, 1);
    }

    // Then: not yet (caught up exactly replica.lag.time.max.ms ago still counts)
    assertThat(proposedIsrs).isEmpty();
    assertThat(leader().state().isr()).isEqualTo(ALL);

    // When: the clock reaches the next check, one millisecond before it, then on it
    for (int second = 31; second < 45; second++) {
      time.sleep(1_000);
      followerFetch(2, 1);
    }
    time.sleep(999);
    assertThat(proposedIsrs).isEmpty();
    time.sleep(1);

    // Then: the shrink check at t=45 s proposes dropping broker 3, and only broker 3
    assertThat(proposedIsrs).containsExactly(List.of(1, 2));
    isrAnswers.get(0).complete(new PartitionState(1, 0, 1, ALL, List.of(1, 2)));
    assertThat(leader().state().isr()).containsExactly(1, 2);
  }

  @Test
  void theLagRuleDropsAFollowerOneMillisecondAfterTheLagTime() {
    // Given: both followers caught up at t=0, then a write only broker 2 fetches
    followerFetch(2, 0);
    followerFetch(3, 0);
    call(produce, produceRequest((short) 1));
    time.sleep(LAG_MS - 1);
    followerFetch(2, 1);

    // When / Then: the lag rule, checked by hand between the periodic checks
    time.sleep(1);
    replicas.maybeShrinkIsrs();
    assertThat(proposedIsrs).as("at exactly the lag time").isEmpty();
    time.sleep(1);
    replicas.maybeShrinkIsrs();
    assertThat(proposedIsrs).containsExactly(List.of(1, 2));
  }

  @Test
  void anAcksAllProduceTimesOutExactlyAtItsDeadline() {
    // Given: broker 2 has fetched everything, broker 3 nothing yet
    followerFetch(2, 0);

    // When: an acks=all produce with a 5 s timeout waits for broker 3
    CompletableFuture<ApiMessage> answer = call(produce, produceRequest((short) -1));
    followerFetch(2, 1);
    assertThat(answer).isNotDone();
    assertThat(delayed.waiting(TP)).isEqualTo(1);
    time.sleep(4_999);

    // Then: still waiting one millisecond before the deadline, timed out on it
    assertThat(answer).isNotDone();
    time.sleep(1);
    assertThat(answer).isDone();
    assertThat(produced(answer).errorCode()).isEqualTo(Errors.REQUEST_TIMED_OUT.code());
    assertThat(delayed.waiting(TP)).isZero();
  }

  @Test
  void anAcksAllProduceCompletesOnTheFollowerFetchThatMovesTheHighWatermark() {
    // Given: an acks=all produce waiting for both followers
    CompletableFuture<ApiMessage> answer = call(produce, produceRequest((short) -1));
    followerFetch(2, 1);
    assertThat(answer).isNotDone();

    // When: broker 3 fetches past the write, with no time passing
    FetchResponseData.PartitionData fetched = followerFetch(3, 1);

    // Then: the fetch moved the high watermark, which the follower learns in the same answer,
    // and the produce is answered
    assertThat(fetched.highWatermark()).isEqualTo(1);
    assertThat(answer).isDone();
    assertThat(produced(answer).errorCode()).isEqualTo(Errors.NONE.code());
  }

  @Test
  void aConsumerLongPollTimesOutEmptyExactlyAtItsMaxWait() {
    // Given: a consumer's fetch of an empty partition, waiting up to 200 ms for one byte
    CompletableFuture<ApiMessage> answer = call(fetch, fetchRequest("t", 0, 0, 200, 1));
    time.sleep(199);
    assertThat(answer).isNotDone();

    // When
    time.sleep(1);

    // Then
    assertThat(answer).isDone();
    FetchResponseData.PartitionData data =
        ((FetchResponseData) answer.join()).responses().get(0).partitions().get(0);
    assertThat(data.errorCode()).isZero();
    assertThat(data.records().sizeInBytes()).isZero();
  }

  /**
   * Broker {@code replicaId}'s fetch from {@code offset} in fetch session {@code sessionId} at
   * {@code epoch}, waiting up to {@code maxWaitMs} for one byte; {@code list} names the partition
   * (a full fetch, or an incremental one whose fetch offset changed).
   */
  private CompletableFuture<ApiMessage> followerFetch(
      int replicaId, long offset, int sessionId, int epoch, boolean list, int maxWaitMs) {
    FetchRequestData request = fetchRequest("t", 0, offset, maxWaitMs, 1);
    request.replicaState().setReplicaId(replicaId).setReplicaEpoch(brokerEpoch(replicaId));
    request.setSessionId(sessionId).setSessionEpoch(epoch);
    if (!list) {
      request.topics().clear();
    }
    return call(fetch, request);
  }

  private static FetchResponseData response(CompletableFuture<ApiMessage> answer) {
    return (FetchResponseData) answer.join();
  }

  /** Consumers may read from followers ({@code replica.selector.class} is the rack-aware one). */
  private void consumersMayReadFromFollowers() {
    fetch =
        new FetchHandler(
            replicas,
            ReadReplicaSelector.RACK_AWARE_SELECTOR,
            FetchHandler.DEFAULT_FETCH_MAX_BYTES);
  }

  /**
   * One record both followers fetched; broker 3 then waits at the log end (500 ms at most), while
   * the high watermark is still 0 because broker 2 has not confirmed the record yet.
   */
  private CompletableFuture<ApiMessage> broker3ParkedBeforeTheHighWatermarkMoves() {
    call(produce, produceRequest((short) 1));
    followerFetch(2, 0);
    followerFetch(3, 0);
    CompletableFuture<ApiMessage> parked =
        followerFetch(3, 1, 0, FetchMetadata.FINAL_EPOCH, true, 500);
    assertThat(parked).isNotDone();
    assertThat(leader().log().highWatermark()).isZero();
    return parked;
  }

  private static void assertHighWatermarkWithoutRecords(CompletableFuture<ApiMessage> answer) {
    assertThat(answer).isDone();
    FetchResponseData.PartitionData data = response(answer).responses().get(0).partitions().get(0);
    assertThat(data.highWatermark()).isEqualTo(1);
    assertThat(data.records().sizeInBytes()).isZero();
  }

  /**
   * Broker 3's full fetch of partition 0 of topic {@code topicId}, which it follows from broker 1,
   * waiting up to 500 ms for one byte.
   */
  private CompletableFuture<ApiMessage> followerFetchOf(Uuid topicId) {
    FetchRequestData request = fetchRequest("u", 0, 0, 500, 1);
    request.topics().get(0).setTopicId(topicId).partitions().get(0).setCurrentLeaderEpoch(1);
    request.replicaState().setReplicaId(3).setReplicaEpoch(brokerEpoch(3));
    return call(fetch, request);
  }

  /** The current image and topic {@code u} ({@code topicId}), its partition 0 led by broker 1. */
  private MetadataImage withTopicU(Uuid topicId) {
    MetadataImage now = replicas.image();
    List<MetadataRecord> records =
        List.of(new TopicRecord("u", topicId), new PartitionRecord(topicId, 0, ALL, ALL, 1, 1, 0));
    return now.apply(records, now.offset() + records.size());
  }

  @Test
  void aFollowerFetchOfATopicTheLeaderDoesNotKnowYetWaitsForTheLeadersNextImage() {
    // Given: broker 3 applied the creation of topic u and fetches it before its leader did
    Uuid topicU = Uuid.randomUuid();
    CompletableFuture<ApiMessage> fetched = followerFetchOf(topicU);

    // Then: the fetch is not answered at once with UNKNOWN_TOPIC_ID (an answer would make the
    // follower fetch again at once, over and over while topics are created) but waits
    assertThat(fetched).isNotDone();

    // When: the leader applies the image that creates u
    replicas.applyMetadata(withTopicU(topicU));
    scheduler.runDue();

    // Then: it is answered at once, with the partition read now that the leader has it
    assertThat(fetched).isDone();
    FetchResponseData.PartitionData data = response(fetched).responses().get(0).partitions().get(0);
    assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.NONE);
    assertThat(replicas.partition(new TopicPartition("u", 0)).orElseThrow().isLeader()).isTrue();
  }

  @Test
  void aFollowerFetchOfATopicTheLeaderNeverLearnsIsAnsweredWithTheErrorWhenItsWaitEnds() {
    // Given
    CompletableFuture<ApiMessage> fetched = followerFetchOf(Uuid.randomUuid());

    // When: an image that does not name it comes, then the wait ends
    replicas.applyMetadata(replicas.image().apply(List.of(), replicas.image().offset() + 1));
    scheduler.runDue();
    CompletableFuture<ApiMessage> again = followerFetchOf(Uuid.randomUuid());
    time.sleep(500);
    scheduler.runDue();

    // Then: each is answered with the error, the first after the image, the second at its deadline
    for (CompletableFuture<ApiMessage> answer : List.of(fetched, again)) {
      assertThat(answer).isDone();
      FetchResponseData.PartitionData data =
          response(answer).responses().get(0).partitions().get(0);
      assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
    }
    assertThat(delayed.waiting(DelayedOperations.NEXT_METADATA_IMAGE)).isZero();
  }

  @Test
  void aParkedFollowerFetchLearnsAMovedHighWatermarkWhenItsWaitEnds() {
    // Given
    CompletableFuture<ApiMessage> parked = broker3ParkedBeforeTheHighWatermarkMoves();

    // When: broker 2's fetch moves the high watermark
    followerFetch(2, 1);

    // Then: as in Kafka, broker 3 is not answered for the high watermark alone (that would double
    // the followers' fetches on a busy partition), but when its wait ends
    assertThat(leader().log().highWatermark()).isEqualTo(1);
    time.sleep(499);
    scheduler.runDue();
    assertThat(parked).isNotDone();
    time.sleep(1);
    scheduler.runDue();
    assertHighWatermarkWithoutRecords(parked);
    assertThat(delayed.waiting(TP)).isZero();
  }

  @Test
  void aParkedFollowerFetchLearnsAMovedHighWatermarkWithItsNextRecords() {
    // Given
    CompletableFuture<ApiMessage> parked = broker3ParkedBeforeTheHighWatermarkMoves();
    followerFetch(2, 1);

    // When: the next record arrives
    call(produce, produceRequest((short) 1));

    // Then: broker 3's answer carries it and the high watermark the first one moved
    assertThat(parked).isDone();
    FetchResponseData.PartitionData data = response(parked).responses().get(0).partitions().get(0);
    assertThat(data.highWatermark()).isEqualTo(1);
    assertThat(data.records().sizeInBytes()).isPositive();
  }

  @Test
  void
      aParkedFollowerFetchIsAnsweredAtOnceWhenOnlyTheHighWatermarkMovesAndConsumersMayReadFromIt() {
    // Given
    consumersMayReadFromFollowers();
    CompletableFuture<ApiMessage> parked = broker3ParkedBeforeTheHighWatermarkMoves();

    // When: broker 2's fetch moves the high watermark, and nothing else happens on the clock
    followerFetch(2, 1);

    // Then: broker 3 hears the new high watermark at once, without data
    assertThat(leader().log().highWatermark()).isEqualTo(1);
    assertHighWatermarkWithoutRecords(parked);
    assertThat(delayed.waiting(TP)).isZero();
  }

  @Test
  void beforeAControlledShutdownEveryParkedFollowerFetchIsAnsweredWithTheHighWatermark() {
    // Given: broker 2 confirmed the record while broker 3 waits
    CompletableFuture<ApiMessage> parked = broker3ParkedBeforeTheHighWatermarkMoves();
    followerFetch(2, 1);
    assertThat(parked).isNotDone();

    // When: the leader's node starts its controlled shutdown
    replicas.tellFollowersHighWatermarksAtOnce();

    // Then: broker 3 hears the high watermark now, and so would every follower after it
    assertHighWatermarkWithoutRecords(parked);
    assertThat(delayed.waiting(TP)).isZero();
  }

  @Test
  void aParkedIncrementalFollowerFetchAnswersTheNewHighWatermarkAndLaterOmitsThePartition() {
    // Given: consumers may read from followers; broker 3's session, opened by a full fetch of the
    // record, then an incremental fetch at the log end parked while the high watermark waits for
    // broker 2
    consumersMayReadFromFollowers();
    call(produce, produceRequest((short) 1));
    followerFetch(2, 0);
    FetchResponseData opened = response(followerFetch(3, 0, 0, 0, true, 0));
    int session = opened.sessionId();
    assertThat(session).isPositive();
    CompletableFuture<ApiMessage> parked = followerFetch(3, 1, session, 1, true, 500);
    assertThat(parked).isNotDone();

    // When: broker 2 confirms the record
    followerFetch(2, 1);

    // Then: the parked fetch answers at once, with the partition and its new high watermark
    assertThat(parked).isDone();
    assertThat(response(parked).sessionId()).isEqualTo(session);
    assertThat(response(parked).responses().get(0).partitions().get(0).highWatermark())
        .isEqualTo(1);

    // And: the next incremental fetch lists nothing, has no news, waits its full 500 ms and
    // answers without the partition
    CompletableFuture<ApiMessage> idle = followerFetch(3, 1, session, 2, false, 500);
    time.sleep(499);
    assertThat(idle).isNotDone();
    time.sleep(1);
    assertThat(idle).isDone();
    assertThat(response(idle).errorCode()).isZero();
    assertThat(response(idle).responses()).isEmpty();
  }

  /**
   * Broker 3's session, opened at the log end, reported high watermark 0; then broker 2's fetch
   * moved it to 1. Returns broker 3's next incremental fetch, with nothing to list, willing to wait
   * 500 ms.
   */
  private CompletableFuture<ApiMessage> incrementalFetchWithAnUnreportedHighWatermark() {
    call(produce, produceRequest((short) 1));
    followerFetch(2, 0);
    followerFetch(3, 0);
    FetchResponseData opened = response(followerFetch(3, 1, 0, 0, true, 0));
    assertThat(opened.responses().get(0).partitions().get(0).highWatermark()).isZero();
    followerFetch(2, 1);
    assertThat(leader().log().highWatermark()).isEqualTo(1);
    return followerFetch(3, 1, opened.sessionId(), 1, false, 500);
  }

  @Test
  void anIncrementalFollowerFetchWithAnUnreportedHighWatermarkIsAnsweredWithoutWaiting() {
    consumersMayReadFromFollowers();

    CompletableFuture<ApiMessage> next = incrementalFetchWithAnUnreportedHighWatermark();

    assertThat(next).isDone();
    assertThat(response(next).responses().get(0).partitions().get(0).highWatermark()).isEqualTo(1);
  }

  @Test
  void anIncrementalFollowerFetchWithAnUnreportedHighWatermarkWaitsWhenNoConsumerReadsFollowers() {
    CompletableFuture<ApiMessage> next = incrementalFetchWithAnUnreportedHighWatermark();

    assertThat(next).isNotDone();
    time.sleep(500);
    scheduler.runDue();
    assertThat(next).isDone();
    assertThat(response(next).responses().get(0).partitions().get(0).highWatermark()).isEqualTo(1);
  }

  /** A follower's fetch that reports its log start offset, answered at once. */
  private void followerFetchReporting(int replicaId, long offset, long logStartOffset) {
    FetchRequestData request = fetchRequest("t", 0, offset, 0, 1);
    request.replicaState().setReplicaId(replicaId).setReplicaEpoch(brokerEpoch(replicaId));
    request.topics().get(0).partitions().get(0).setLogStartOffset(logStartOffset);
    assertThat(call(fetch, request)).isDone();
  }

  private CompletableFuture<ApiMessage> deleteRecordsBefore(long offset) {
    DeleteRecordsRequestData request = new DeleteRecordsRequestData().setTimeoutMs(5_000);
    request
        .topics()
        .add(
            new DeleteRecordsRequestData.DeleteRecordsTopic()
                .setName("t")
                .setPartitions(
                    List.of(
                        new DeleteRecordsRequestData.DeleteRecordsPartition()
                            .setPartitionIndex(0)
                            .setOffset(offset))));
    return call(new DeleteRecordsHandler(replicas), request);
  }

  private static DeleteRecordsResponseData.DeleteRecordsPartitionResult deleted(
      CompletableFuture<ApiMessage> answer) {
    return ((DeleteRecordsResponseData) answer.join())
        .topics()
        .iterator()
        .next()
        .partitions()
        .iterator()
        .next();
  }

  @Test
  void deleteRecordsAnswersOnceEveryLiveReplicaHasMovedItsStart() {
    // Given: three records on every replica, high watermark 3
    for (int i = 0; i < 3; i++) {
      call(produce, produceRequest((short) 1));
    }
    followerFetchReporting(2, 3, 0);
    followerFetchReporting(3, 3, 0);
    assertThat(leader().log().highWatermark()).isEqualTo(3);

    // When: records before offset 2 are deleted
    CompletableFuture<ApiMessage> answer = deleteRecordsBefore(2);

    // Then: unreadable on the leader at once, answered only when both followers report start 2
    assertThat(leader().log().logStartOffset()).isEqualTo(2);
    assertThat(answer).isNotDone();
    followerFetchReporting(2, 3, 2);
    assertThat(answer).isNotDone();
    followerFetchReporting(3, 3, 2);
    assertThat(answer).isDone();
    assertThat(deleted(answer).errorCode()).isZero();
    assertThat(deleted(answer).lowWatermark()).isEqualTo(2);
  }

  @Test
  void deleteRecordsThatAFollowerNeverConfirmsTimesOutWithRequestTimedOut() {
    for (int i = 0; i < 3; i++) {
      call(produce, produceRequest((short) 1));
    }
    followerFetchReporting(2, 3, 0);
    followerFetchReporting(3, 3, 0);

    CompletableFuture<ApiMessage> answer = deleteRecordsBefore(-1);
    followerFetchReporting(2, 3, 3);
    time.sleep(4_999);
    assertThat(answer).isNotDone();
    time.sleep(1);
    assertThat(answer).isDone();
    assertThat(Errors.forCode(deleted(answer).errorCode())).isEqualTo(Errors.REQUEST_TIMED_OUT);
    assertThat(leader().log().logStartOffset()).isEqualTo(3);
  }

  /**
   * Broker {@code replicaId}'s session opened by a full fetch at {@code offset} in leader epoch 0,
   * answered at once; returns the session id.
   */
  private int openSession(int replicaId, long offset) {
    FetchRequestData request = fetchRequest("t", 0, offset, 0, 1);
    request.topics().get(0).partitions().get(0).setCurrentLeaderEpoch(0);
    request.replicaState().setReplicaId(replicaId).setReplicaEpoch(brokerEpoch(replicaId));
    request.setSessionId(0).setSessionEpoch(0);
    CompletableFuture<ApiMessage> answer = call(fetch, request);
    assertThat(answer).isDone();
    int session = response(answer).sessionId();
    assertThat(session).isPositive();
    return session;
  }

  /** An incremental fetch of broker {@code replicaId}'s session that lists nothing, 500 ms wait. */
  private CompletableFuture<ApiMessage> unlistedFetch(int replicaId, int session, int epoch) {
    return followerFetch(replicaId, 0, session, epoch, false, 500);
  }

  /**
   * One record both followers hold, high watermark 1, and broker 3's session at the log end, whose
   * first incremental fetch read the partition and waited its 500 ms; returns the session id.
   */
  private int broker3IdleInItsSession() {
    call(produce, produceRequest((short) 1));
    followerFetch(2, 1);
    int session = openSession(3, 1);
    assertThat(leader().log().highWatermark()).isEqualTo(1);
    CompletableFuture<ApiMessage> first = unlistedFetch(3, session, 1);
    time.sleep(500);
    assertThat(first).isDone();
    assertThat(response(first).responses()).isEmpty();
    return session;
  }

  @Test
  void anIdleFollowerFetchSkipsItsQuietPartitionAndAnAppendStillWakesIt() {
    // Given: broker 3 idle at the log end of its session
    int session = broker3IdleInItsSession();
    long quietBefore = sessions.quietPartitions();

    // When: its next incremental fetch, which lists nothing
    CompletableFuture<ApiMessage> parked = unlistedFetch(3, session, 2);

    // Then: the partition is not read (nothing changed on either side) but the fetch waits on it
    assertThat(sessions.quietPartitions()).isEqualTo(quietBefore + 1);
    assertThat(parked).isNotDone();
    assertThat(delayed.waiting(TP)).isEqualTo(1);

    // When: a record arrives, with no time passing
    call(produce, produceRequest((short) 1));

    // Then: the parked fetch is answered at once, with the record
    assertThat(parked).isDone();
    FetchResponseData.PartitionData data = response(parked).responses().get(0).partitions().get(0);
    assertThat(data.records().sizeInBytes()).isPositive();
    assertThat(data.errorCode()).isZero();
  }

  @Test
  void followersWhosePartitionStaysQuietStayInTheIsrWhenAWriteComesAfterTheLagTime() {
    // Given: both followers' sessions at the log end of one record
    call(produce, produceRequest((short) 1));
    int session2 = openSession(2, 1);
    int session3 = openSession(3, 1);
    long quietBefore = sessions.quietPartitions();

    // When: a minute of incremental fetches that list nothing, each waiting its 500 ms
    for (int epoch = 1; epoch <= 120; epoch++) {
      CompletableFuture<ApiMessage> of2 = unlistedFetch(2, session2, epoch);
      CompletableFuture<ApiMessage> of3 = unlistedFetch(3, session3, epoch);
      time.sleep(500);
      assertThat(of2).isDone();
      assertThat(of3).isDone();
    }
    // (the first incremental fetch of each session reads the partition, then it is quiet)
    assertThat(sessions.quietPartitions() - quietBefore).isEqualTo(2 * 119);

    // Then: a write the followers have not fetched yet leaves them in the ISR: each skipped fetch
    // counted as a caught-up fetch, as a read would have
    call(produce, produceRequest((short) 1));
    replicas.maybeShrinkIsrs();
    assertThat(proposedIsrs).isEmpty();
    assertThat(leader().state().isr()).isEqualTo(ALL);
  }

  @Test
  void aQuietPartitionIsReadAgainWhenItsHighWatermarkMoves() {
    // Given: broker 3 idle at the log end; broker 2 behind by a new record
    int session = broker3IdleInItsSession();
    call(produce, produceRequest((short) 1));
    followerFetch(3, 2); // broker 3 takes the record outside its session
    long quietBefore = sessions.quietPartitions();

    // When: broker 2 confirms it (the high watermark moves), then broker 3 fetches in its session
    followerFetch(2, 2);
    assertThat(leader().log().highWatermark()).isEqualTo(2);
    CompletableFuture<ApiMessage> next = unlistedFetch(3, session, 2);

    // Then: the partition is read, and the answer at the end of the wait reports the new high
    // watermark (the session's offset is still 1: the record comes with it)
    assertThat(sessions.quietPartitions()).isEqualTo(quietBefore);
    assertThat(next).isDone();
    FetchResponseData.PartitionData data = response(next).responses().get(0).partitions().get(0);
    assertThat(data.highWatermark()).isEqualTo(2);
    assertThat(data.records().sizeInBytes()).isPositive();
  }

  @Test
  void aParkedQuietFetchWakesWhenTheLeaderEpochMovesAndIsAnsweredFenced() {
    // Given: broker 3's fetch parked on its quiet partition, in leader epoch 0
    int session = broker3IdleInItsSession();
    CompletableFuture<ApiMessage> parked = unlistedFetch(3, session, 2);
    assertThat(parked).isNotDone();

    // When: the leadership moves to broker 2 and back, in one image: broker 1 leads in epoch 2
    MetadataImage now = replicas.image();
    List<MetadataRecord> records =
        List.of(
            new PartitionChangeRecord(TOPIC_ID, 0, Optional.empty(), Optional.of(2)),
            new PartitionChangeRecord(TOPIC_ID, 0, Optional.empty(), Optional.of(1)));
    replicas.applyMetadata(now.apply(records, now.offset() + records.size()));
    assertThat(leader().state().leaderEpoch()).isEqualTo(2);
    scheduler.runDue();

    // Then: the fetch is answered at once, telling broker 3 its epoch is fenced
    assertThat(parked).isDone();
    FetchResponseData.PartitionData data = response(parked).responses().get(0).partitions().get(0);
    assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.FENCED_LEADER_EPOCH);
  }

  @Test
  void aCaughtUpFollowerOutsideTheIsrIsReadSoItsFetchProposesItsReturn() {
    // Given: broker 3 idle at the log end of its session, then dropped from the ISR
    int session = broker3IdleInItsSession();
    MetadataImage now = replicas.image();
    List<MetadataRecord> records =
        List.of(
            new PartitionChangeRecord(TOPIC_ID, 0, Optional.of(List.of(1, 2)), Optional.empty()));
    replicas.applyMetadata(now.apply(records, now.offset() + records.size()));
    assertThat(leader().state().isr()).containsExactly(1, 2);
    long quietBefore = sessions.quietPartitions();

    // When: its next incremental fetch, which lists nothing
    unlistedFetch(3, session, 2);

    // Then: the partition is read, not skipped, and the caught-up follower is proposed back
    assertThat(sessions.quietPartitions()).isEqualTo(quietBefore);
    assertThat(proposedIsrs).containsExactly(ALL);
  }
}
