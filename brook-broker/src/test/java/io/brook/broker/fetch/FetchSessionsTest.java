package io.brook.broker.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.delayed.DelayedOperation;
import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.delayed.StandingWatch;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchMetadata;
import org.junit.jupiter.api.Test;

/**
 * Fetch sessions without a broker: requests built as clients build them, answers made up per
 * partition, and what the contexts read and respond checked against KIP-227's rules.
 */
class FetchSessionsTest {
  private static final short V17 = 17;
  private static final short V12 = 12;
  private static final Uuid TOPIC = Uuid.fromString("ZCbxCzGbTpmOIVbVk2Uq4Q");

  private final MockTime time = new MockTime();
  private FetchSessions sessions = sessions(10, 1_000);

  private FetchSessions sessions(int slots, long evictionMs) {
    return new FetchSessions(new FetchSessionCache(slots, evictionMs, time), time);
  }

  /** A request of session {@code id} at {@code epoch} listing {@code partitions} of TOPIC. */
  private static FetchRequestData request(int id, int epoch, int... partitions) {
    FetchRequestData request = new FetchRequestData().setSessionId(id).setSessionEpoch(epoch);
    if (partitions.length > 0) {
      FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopicId(TOPIC);
      for (int p : partitions) {
        topic
            .partitions()
            .add(
                new FetchRequestData.FetchPartition()
                    .setPartition(p)
                    .setFetchOffset(10L * p)
                    .setPartitionMaxBytes(1024));
      }
      request.topics().add(topic);
    }
    return request;
  }

  private static FetchRequestData forget(FetchRequestData request, int... partitions) {
    List<Integer> list = new ArrayList<>();
    for (int p : partitions) {
      list.add(p);
    }
    request
        .forgottenTopicsData()
        .add(new FetchRequestData.ForgottenTopic().setTopicId(TOPIC).setPartitions(list));
    return request;
  }

  private static PartitionData data(int partition, long highWatermark) {
    return new PartitionData()
        .setPartitionIndex(partition)
        .setHighWatermark(highWatermark)
        .setLastStableOffset(highWatermark)
        .setLogStartOffset(0)
        .setRecords(MemoryRecords.EMPTY);
  }

  private static PartitionData withRecords(PartitionData data) {
    return data.setRecords(
        MemoryRecords.withRecords(
            Compression.NONE, new SimpleRecord("v".getBytes(StandardCharsets.UTF_8))));
  }

  /** Answers every partition the context reads with {@code answer}. */
  private static FetchResponseData respond(
      FetchContext context, java.util.function.IntFunction<PartitionData> answer) {
    List<FetchContext.Answered> answers = new ArrayList<>();
    for (FetchContext.Requested requested : context.partitions()) {
      answers.add(
          new FetchContext.Answered(requested.key(), answer.apply(requested.key().partition())));
    }
    return context.respond(answers);
  }

  private static List<Integer> answered(FetchResponseData response) {
    List<Integer> out = new ArrayList<>();
    response.responses().forEach(t -> t.partitions().forEach(p -> out.add(p.partitionIndex())));
    return out;
  }

  private static List<Integer> read(FetchContext context) {
    return context.partitions().stream().map(r -> r.key().partition()).toList();
  }

  /** Opens a session over {@code partitions}, all with high watermark 5; returns its id. */
  private int open(FetchSessions on, boolean follower, int... partitions) {
    FetchContext full = on.newContext(request(0, 0, partitions), V17, follower);
    FetchResponseData response = respond(full, p -> data(p, 5));
    return response.sessionId();
  }

  @Test
  void aFullFetchAtEpochZeroOpensASessionAndAnswersEveryPartition() {
    FetchContext context = sessions.newContext(request(0, 0, 0, 1, 2), V17, false);

    assertThat(context).isInstanceOf(FetchContext.Full.class);
    FetchResponseData response = respond(context, p -> data(p, 5));
    assertThat(response.sessionId()).isPositive();
    assertThat(answered(response)).containsExactly(0, 1, 2);
    assertThat(sessions.cache().size()).isEqualTo(1);
    assertThat(sessions.cache().partitionsCached()).isEqualTo(3);
  }

  @Test
  void anIncrementalFetchReadsTheSessionsPartitionsAndAnswersOnlyThoseWithNews() {
    int id = open(sessions, false, 0, 1, 2);

    // Nothing listed: the session's three partitions are read, none has news.
    FetchContext idle = sessions.newContext(request(id, 1), V17, false);
    assertThat(read(idle)).containsExactly(0, 1, 2);
    FetchResponseData quiet = respond(idle, p -> data(p, 5));
    assertThat(quiet.sessionId()).isEqualTo(id);
    assertThat(quiet.errorCode()).isZero();
    assertThat(answered(quiet)).isEmpty();

    // Records on 0, a new high watermark on 1: both answered, 2 omitted.
    FetchContext next = sessions.newContext(request(id, 2), V17, false);
    FetchResponseData news =
        respond(next, p -> p == 0 ? withRecords(data(p, 5)) : data(p, p == 1 ? 6 : 5));
    assertThat(answered(news)).containsExactly(0, 1);

    // The new high watermark was reported once; the partition with data moved to the end.
    FetchContext after = sessions.newContext(request(id, 3), V17, false);
    assertThat(read(after)).containsExactly(1, 2, 0);
    assertThat(answered(respond(after, p -> data(p, p == 1 ? 6 : 5)))).isEmpty();
  }

  @Test
  void aChangedLastStableOffsetOrLogStartOffsetIsNews() {
    int id = open(sessions, false, 0, 1);

    FetchContext context = sessions.newContext(request(id, 1), V17, false);
    FetchResponseData response =
        respond(
            context,
            p -> p == 0 ? data(p, 5).setLastStableOffset(4) : data(p, 5).setLogStartOffset(3));

    assertThat(answered(response)).containsExactly(0, 1);
  }

  @Test
  void aPartitionJoiningTheSessionIsAnsweredButIsNoReasonToAnswerAtOnce() {
    // Given: a follower's session over partition 0, which has been answered
    int id = open(sessions, true, 0);

    // When: partition 1 joins the session, with nothing to read
    FetchContext joined = sessions.newContext(request(id, 1, 1), V17, true);
    List<FetchContext.Answered> answers = new ArrayList<>();
    for (FetchContext.Requested requested : joined.partitions()) {
      answers.add(new FetchContext.Answered(requested.key(), data(requested.key().partition(), 5)));
    }

    // Then: its first offsets are not news a follower's fetch must be cut short for (thousands of
    // partitions join while topics are created), yet the response, when it goes, carries it
    assertThat(joined.hasNews(answers, false)).isFalse();
    assertThat(answered(joined.respond(answers))).containsExactly(1);

    // And a log start offset moved after that first report is news
    FetchContext moved = sessions.newContext(request(id, 2), V17, true);
    List<FetchContext.Answered> later = new ArrayList<>();
    for (FetchContext.Requested requested : moved.partitions()) {
      int partition = requested.key().partition();
      later.add(
          new FetchContext.Answered(
              requested.key(), partition == 1 ? data(1, 5).setLogStartOffset(2) : data(0, 5)));
    }
    assertThat(moved.hasNews(later, false)).isTrue();
  }

  @Test
  void anErrorIsAlwaysAnsweredAndTheNextSuccessfulReadToo() {
    int id = open(sessions, false, 0);

    FetchContext failing = sessions.newContext(request(id, 1), V17, false);
    FetchResponseData failed =
        respond(failing, p -> data(p, 5).setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()));
    assertThat(answered(failed)).containsExactly(0);

    FetchContext again = sessions.newContext(request(id, 2), V17, false);
    assertThat(answered(respond(again, p -> data(p, 5)))).containsExactly(0);
  }

  @Test
  void anIncrementalFetchAddsAltersAndForgetsPartitions() {
    int id = open(sessions, false, 0, 1);

    // Adds 2 (new to the session: answered although nothing changed), alters 0, forgets 1.
    FetchRequestData request = forget(request(id, 1, 2, 0), 1);
    request.topics().get(0).partitions().get(1).setFetchOffset(77);
    FetchContext context = sessions.newContext(request, V17, false);

    assertThat(read(context)).containsExactly(0, 2);
    assertThat(context.partitions().get(0).request().fetchOffset()).isEqualTo(77);
    assertThat(answered(respond(context, p -> data(p, 5)))).containsExactly(2);
    assertThat(sessions.cache().partitionsCached()).isEqualTo(2);
  }

  @Test
  void forgettingEveryPartitionClosesTheSession() {
    int id = open(sessions, false, 0, 1);

    FetchContext context = sessions.newContext(forget(request(id, 1), 0, 1), V17, false);

    assertThat(context).isInstanceOf(FetchContext.Sessionless.class);
    assertThat(respond(context, p -> data(p, 5)).sessionId()).isZero();
    assertThat(sessions.cache().size()).isZero();
  }

  /** A fetch over the partitions {@code context} reads that waits until its deadline. */
  private static final class WaitingFetch extends DelayedOperation {
    boolean answered;

    WaitingFetch(FetchContext context) {
      super(
          context.partitions().stream()
              .map(r -> new org.apache.kafka.common.TopicPartition("t", r.key().partition()))
              .toList(),
          WaitsOn.LOG_END);
    }

    @Override
    protected boolean isSatisfied() {
      return false;
    }

    @Override
    protected void onComplete(boolean timedOut) {
      answered = true;
    }
  }

  @Test
  void anIncrementalSessionsFetchesParkThroughOneWatchWhichLeavesWithTheSession() {
    // Given: a session over partitions 0 and 1 whose incremental fetch waits
    ManualScheduler timer = new ManualScheduler(time);
    DelayedOperations delayed = new DelayedOperations(timer);
    int id = open(sessions, true, 0, 1);
    FetchContext first = sessions.newContext(request(id, 1), V17, true);
    respond(first, p -> data(p, 5));
    StandingWatch watch = first.standingWatch(delayed);
    WaitingFetch parked = new WaitingFetch(first);
    delayed.submit(parked, 60_000, watch);
    assertThat(delayed.watchedPartitions()).isEqualTo(2);

    // Then: the session's next fetch parks through the same watch; a full fetch or a
    // sessionless one has none
    assertThat(sessions.newContext(request(id, 2), V17, true).standingWatch(delayed))
        .isSameAs(watch);
    assertThat(sessions.newContext(request(0, -1, 0), V17, true).standingWatch(delayed)).isNull();

    // When: a full fetch naming the session closes it
    sessions.newContext(request(id, 0, 0, 1), V17, true);
    timer.runDue();

    // Then: the waiting fetch is answered, and the watch left both partitions
    assertThat(parked.answered).isTrue();
    assertThat(delayed.watchedPartitions()).isZero();
    delayed.close();
  }

  @Test
  void anEvictedSessionsWatchLeavesItsPartitions() {
    // Given: a cache of one slot holding a consumer session whose watch is registered
    DelayedOperations delayed = new DelayedOperations(new ManualScheduler(time));
    sessions = sessions(1, 1_000);
    int id = open(sessions, false, 0, 1);
    FetchContext incremental = sessions.newContext(request(id, 1), V17, false);
    WaitingFetch waiting = new WaitingFetch(incremental);
    delayed.submit(waiting, 60_000, incremental.standingWatch(delayed));
    assertThat(delayed.watchedPartitions()).isEqualTo(2);

    // When: a follower's new session evicts it
    open(sessions, true, 7);

    // Then
    assertThat(sessions.cache().size()).isEqualTo(1);
    assertThat(delayed.watchedPartitions()).isZero();
    delayed.close();
  }

  @Test
  void anUnknownSessionIdIsFetchSessionIdNotFound() {
    FetchContext context = sessions.newContext(request(12345, 1), V17, false);

    assertThat(context.partitions()).isEmpty();
    FetchResponseData response = respond(context, p -> data(p, 5));
    assertThat(response.errorCode()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
    assertThat(response.sessionId()).isZero();
  }

  @Test
  void aWrongEpochIsInvalidFetchSessionEpochAndLeavesTheSessionAsItWas() {
    int id = open(sessions, false, 0);

    FetchResponseData response =
        respond(sessions.newContext(request(id, 2), V17, false), p -> data(p, 5));
    assertThat(response.errorCode()).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH.code());

    // The expected epoch still works.
    FetchResponseData ok =
        respond(sessions.newContext(request(id, 1), V17, false), p -> data(p, 5));
    assertThat(ok.errorCode()).isZero();
    assertThat(ok.sessionId()).isEqualTo(id);
  }

  @Test
  void aRequestOvertakenByARetryOfTheSameEpochAnswersInvalidFetchSessionEpoch() {
    int id = open(sessions, false, 0);
    FetchContext first = sessions.newContext(request(id, 1), V17, false);

    // The same epoch again cannot start: the session moved on to epoch 2.
    assertThat(
            respond(sessions.newContext(request(id, 1), V17, false), p -> data(p, 5)).errorCode())
        .isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH.code());
    // A later epoch-2 request overtakes the first before it answers.
    respond(sessions.newContext(request(id, 2), V17, false), p -> data(p, 6));

    FetchResponseData late = respond(first, p -> data(p, 7));
    assertThat(late.errorCode()).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH.code());
    assertThat(answered(late)).isEmpty();
  }

  @Test
  void aSessionOpenedWithTopicIdsRefusesARequestWithTopicNames() {
    int id = open(sessions, false, 0);

    FetchResponseData response =
        respond(sessions.newContext(request(id, 1), V12, false), p -> data(p, 5));

    assertThat(response.errorCode()).isEqualTo(Errors.FETCH_SESSION_TOPIC_ID_ERROR.code());
  }

  @Test
  void epochMinusOneClosesTheNamedSessionAndOpensNone() {
    int id = open(sessions, false, 0);

    FetchContext context =
        sessions.newContext(request(id, FetchMetadata.FINAL_EPOCH, 0), V17, false);

    assertThat(context).isInstanceOf(FetchContext.Sessionless.class);
    FetchResponseData response = respond(context, p -> data(p, 5));
    assertThat(response.sessionId()).isZero();
    assertThat(answered(response)).containsExactly(0);
    assertThat(sessions.cache().size()).isZero();
  }

  @Test
  void aFullFetchNamingASessionClosesItAndOpensAnother() {
    int id = open(sessions, false, 0);

    FetchResponseData response =
        respond(sessions.newContext(request(id, 0, 0, 1), V17, false), p -> data(p, 5));

    assertThat(response.sessionId()).isPositive().isNotEqualTo(id);
    assertThat(sessions.cache().size()).isEqualTo(1);
    assertThat(
            respond(sessions.newContext(request(id, 1), V17, false), p -> data(p, 5)).errorCode())
        .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
  }

  @Test
  void requestsBeforeVersionSevenAreSessionless() {
    FetchContext context = sessions.newContext(request(0, 0, 0), (short) 6, false);

    assertThat(context).isInstanceOf(FetchContext.Sessionless.class);
    assertThat(sessions.cache().size()).isZero();
  }

  @Test
  void zeroSlotsTurnSessionsOff() {
    FetchSessions off = sessions(0, 1_000);

    assertThat(open(off, true, 0, 1)).isZero();
    assertThat(off.cache().size()).isZero();
  }

  @Test
  void aFullCacheAdmitsNoConsumerSessionWhileTheOthersAreYoungAndAsLarge() {
    FetchSessions two = sessions(2, 1_000);
    open(two, false, 0, 1);
    open(two, false, 0, 1);

    assertThat(open(two, false, 0, 1)).isZero();
    assertThat(two.cache().evictions()).isZero();
  }

  @Test
  void aFollowerEvictsAYoungConsumerSession() {
    FetchSessions two = sessions(2, 1_000);
    int consumer = open(two, false, 0, 1, 2);
    int follower = open(two, true, 0);

    int another = open(two, true, 0);

    assertThat(another).isPositive();
    assertThat(two.cache().get(consumer)).isNull();
    assertThat(two.cache().get(follower)).isNotNull();
    assertThat(two.cache().evictions()).isEqualTo(1);
  }

  @Test
  void aConsumerNeverEvictsAYoungFollowerSessionNorAnOldOneWithMorePartitions() {
    FetchSessions one = sessions(1, 1_000);
    open(one, true, 0);
    assertThat(open(one, false, 0, 1, 2)).as("young follower session").isZero();

    time.sleep(1_001);
    FetchSessions full = sessions(1, 1_000);
    int follower = open(full, true, 0, 1);
    time.sleep(500);
    full.newContext(request(follower, 1), V17, true); // used: not stale
    time.sleep(501);
    assertThat(open(full, false, 0, 1, 2)).as("old but privileged, used recently").isZero();
  }

  @Test
  void aLargerNewcomerEvictsASmallerSessionOnceItIsOld() {
    FetchSessions one = sessions(1, 1_000);
    int small = open(one, false, 0);
    // Used every 600 ms, so never stale; the cache sees its age when it is used.
    time.sleep(600);
    one.newContext(request(small, 1), V17, false);
    time.sleep(600);
    one.newContext(request(small, 2), V17, false);
    time.sleep(100);

    assertThat(open(one, false, 0)).as("as large: no").isZero();
    int larger = open(one, false, 0, 1);

    assertThat(larger).isPositive();
    assertThat(one.cache().get(small)).isNull();
  }

  @Test
  void aStaleSessionIsEvictedByAnyNewcomer() {
    FetchSessions one = sessions(1, 1_000);
    int follower = open(one, true, 0, 1, 2, 3);
    time.sleep(1_001);

    int consumer = open(one, false, 0);

    assertThat(consumer).isPositive();
    assertThat(one.cache().get(follower)).isNull();
  }
}
