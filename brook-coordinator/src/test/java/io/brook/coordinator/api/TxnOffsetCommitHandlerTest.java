package io.brook.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.testing.CoordinatorFixture;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TxnOffsetCommit, markers and OffsetFetch through the handlers, on a real {@code
 * __consumer_offsets} log: pending offsets, COMMIT and ABORT, require_stable, fencing and loading.
 */
class TxnOffsetCommitHandlerTest {
  private static final String GROUP = "txn-group";
  private static final String TOPIC = "orders";
  private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
  private static final TopicPartition OFFSETS_0 = new TopicPartition(GroupConfig.OFFSETS_TOPIC, 0);

  @TempDir Path dir;
  private CoordinatorFixture fixture;
  private GroupCoordinator coordinator;

  @BeforeEach
  void setUp() throws Exception {
    fixture = new CoordinatorFixture(dir);
    fixture.createTopic(TOPIC, 2, Map.of());
    fixture.createTopic(GroupConfig.OFFSETS_TOPIC, 1, Map.of());
    coordinator = startCoordinator();
  }

  private GroupCoordinator startCoordinator() {
    GroupCoordinator started =
        new GroupCoordinator(
            GroupConfig.defaults(),
            fixture.logs,
            fixture.partitionEnds,
            fixture.replicaManager::image,
            Time.SYSTEM);
    fixture.quorum.addListener(started::onMetadata);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              try {
                started.run(GROUP, s -> CompletableFuture.completedFuture(1)).get();
                return true;
              } catch (Exception e) {
                return false;
              }
            });
    return started;
  }

  @AfterEach
  void tearDown() throws Exception {
    coordinator.close();
    fixture.close();
  }

  private static RequestInfo context(short version) {
    return new RequestInfo(
        version, "client", String.valueOf(InetAddress.getLoopbackAddress()), "conn-1");
  }

  private static ApiMessage call(GroupApi handler, short version, ApiMessage request)
      throws Exception {
    return handler
        .handle(context(version), request)
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  private Map<TopicPartition, Errors> txnCommit(
      long producerId, short epoch, int generation, String memberId, short version, long... offs)
      throws Exception {
    TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic =
        new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(TOPIC);
    for (int p = 0; p < offs.length; p++) {
      topic
          .partitions()
          .add(
              new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                  .setPartitionIndex(p)
                  .setCommittedOffset(offs[p])
                  .setCommittedMetadata("m" + offs[p]));
    }
    TxnOffsetCommitRequestData request =
        new TxnOffsetCommitRequestData()
            .setTransactionalId("txn-" + producerId)
            .setGroupId(GROUP)
            .setProducerId(producerId)
            .setProducerEpoch(epoch)
            .setGenerationIdOrMemberEpoch(generation)
            .setMemberId(memberId)
            .setTopics(List.of(topic));
    TxnOffsetCommitResponseData response =
        (TxnOffsetCommitResponseData)
            call(new TxnOffsetCommitHandler(coordinator), version, request);
    Map<TopicPartition, Errors> errors = new HashMap<>();
    response
        .topics()
        .forEach(
            t ->
                t.partitions()
                    .forEach(
                        p ->
                            errors.put(
                                new TopicPartition(t.name(), p.partitionIndex()),
                                Errors.forCode(p.errorCode()))));
    return errors;
  }

  private Map<TopicPartition, Errors> txnCommit(long producerId, short epoch, long... offsets)
      throws Exception {
    return txnCommit(producerId, epoch, -1, "", (short) 5, offsets);
  }

  private void plainCommit(long offset) throws Exception {
    OffsetCommitRequestData request =
        new OffsetCommitRequestData()
            .setGroupId(GROUP)
            .setGenerationIdOrMemberEpoch(-1)
            .setTopics(
                List.of(
                    new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName(TOPIC)
                        .setPartitions(
                            List.of(
                                new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                    .setPartitionIndex(0)
                                    .setCommittedOffset(offset)
                                    .setCommittedMetadata("")))));
    call(new OffsetCommitHandler(coordinator), (short) 8, request);
  }

  /** Per partition of the topic: the committed offset, or the error code as a negative number. */
  private Map<Integer, Long> fetch(boolean requireStable) throws Exception {
    OffsetFetchRequestData request =
        new OffsetFetchRequestData()
            .setRequireStable(requireStable)
            .setGroups(
                List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestGroup()
                        .setGroupId(GROUP)
                        .setTopics(
                            List.of(
                                new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                    .setName(TOPIC)
                                    .setPartitionIndexes(List.of(0, 1))))));
    OffsetFetchResponseData response =
        (OffsetFetchResponseData) call(new OffsetFetchHandler(coordinator), (short) 8, request);
    Map<Integer, Long> result = new HashMap<>();
    response
        .groups()
        .get(0)
        .topics()
        .forEach(
            t ->
                t.partitions()
                    .forEach(
                        p ->
                            result.put(
                                p.partitionIndex(),
                                p.errorCode() != 0 ? (long) -p.errorCode() : p.committedOffset())));
    return result;
  }

  private static final long UNSTABLE = -Errors.UNSTABLE_OFFSET_COMMIT.code();

  private void marker(long producerId, short epoch, TxnResult result) throws Exception {
    coordinator
        .writeMarker(OFFSETS_0, producerId, epoch, 0, result == TxnResult.COMMIT)
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void offsetsCommittedInATransactionBecomeVisibleWithItsCommitMarker() throws Exception {
    // When a producer commits offsets in its transaction
    assertThat(txnCommit(7, (short) 0, 10, 20).values()).containsOnly(Errors.NONE);

    // Then they are invisible, and unstable to a require_stable fetch, until the COMMIT marker
    assertThat(fetch(false)).containsExactlyInAnyOrderEntriesOf(Map.of(0, -1L, 1, -1L));
    assertThat(fetch(true)).containsExactlyInAnyOrderEntriesOf(Map.of(0, UNSTABLE, 1, UNSTABLE));
    marker(7, (short) 0, TxnResult.COMMIT);
    assertThat(fetch(false)).containsExactlyInAnyOrderEntriesOf(Map.of(0, 10L, 1, 20L));
    assertThat(fetch(true)).containsExactlyInAnyOrderEntriesOf(Map.of(0, 10L, 1, 20L));
  }

  @Test
  void anAbortMarkerDropsThePendingOffsetsAndKeepsTheCommittedOnes() throws Exception {
    // Given a plain commit of partition 0 at 5
    plainCommit(5);

    // When a transaction commits 50 and aborts
    txnCommit(8, (short) 0, 50);
    assertThat(fetch(true)).containsEntry(0, UNSTABLE);
    assertThat(fetch(false)).containsEntry(0, 5L);
    marker(8, (short) 0, TxnResult.ABORT);

    // Then the committed offset stands and is stable again
    assertThat(fetch(true)).containsEntry(0, 5L);
  }

  @Test
  void aCommitMarkerDoesNotUndoAPlainCommitWrittenAfterTheTransactionalOne() throws Exception {
    txnCommit(9, (short) 0, 30);
    plainCommit(40);
    marker(9, (short) 0, TxnResult.COMMIT);
    assertThat(fetch(true)).containsEntry(0, 40L);
  }

  @Test
  void anOlderProducerEpochIsFencedWhileTheCurrentOneKeepsCommitting() throws Exception {
    // Given epoch 3 wrote twice in one transaction (the log checks its sequence) and committed
    assertThat(txnCommit(11, (short) 3, 1, 1).values()).containsOnly(Errors.NONE);
    assertThat(txnCommit(11, (short) 3, 2, 2).values()).containsOnly(Errors.NONE);
    marker(11, (short) 3, TxnResult.COMMIT);

    // When a zombie with epoch 2 commits, it is fenced; the next epoch goes on
    assertThat(txnCommit(11, (short) 2, 99, 99).values()).containsOnly(Errors.PRODUCER_FENCED);
    assertThat(txnCommit(11, (short) 4, 3, 3).values()).containsOnly(Errors.NONE);
    assertThat(txnCommit(11, (short) 4, 4, 4).values()).containsOnly(Errors.NONE);
    marker(11, (short) 4, TxnResult.COMMIT);
    assertThat(fetch(true)).containsExactlyInAnyOrderEntriesOf(Map.of(0, 4L, 1, 4L));
  }

  @Test
  void membersOfAGroupThatDoesNotExistAreRefusedByVersion() throws Exception {
    assertThat(txnCommit(12, (short) 0, 3, "m-1", (short) 3, 1).values())
        .containsOnly(Errors.ILLEGAL_GENERATION);
    assertThat(txnCommit(12, (short) 0, -1, "m-1", (short) 3, 1).values())
        .containsOnly(Errors.UNKNOWN_MEMBER_ID);
    assertThat(txnCommit(12, (short) 0, -1, "", (short) 0, 1).values()).containsOnly(Errors.NONE);
  }

  @Test
  void loadingTheLogRebuildsPendingCommittedAndAbortedTransactionsExactly() throws Exception {
    // Given a committed, an aborted and a still open transaction, and a plain commit between
    txnCommit(21, (short) 0, 100, 200);
    marker(21, (short) 0, TxnResult.COMMIT);
    txnCommit(22, (short) 0, 999, 999);
    plainCommit(150);
    marker(22, (short) 0, TxnResult.ABORT);
    txnCommit(23, (short) 1, 300);
    State before = state();
    assertThat(before.pending()).containsOnlyKeys(23L);

    // When another coordinator loads the partition from the log
    coordinator.close();
    coordinator = startCoordinator();

    // Then its state is the same, and the open transaction still completes
    assertThat(state()).isEqualTo(before);
    assertThat(fetch(true)).containsExactlyInAnyOrderEntriesOf(Map.of(0, UNSTABLE, 1, 200L));
    marker(23, (short) 1, TxnResult.COMMIT);
    assertThat(fetch(true)).containsExactlyInAnyOrderEntriesOf(Map.of(0, 300L, 1, 200L));
  }

  private record State(
      Map<TopicPartition, CommittedOffset> committed,
      Map<Long, Map<String, Map<TopicPartition, CommittedOffset>>> pending,
      Set<TopicPartition> unstable) {}

  private State state() throws Exception {
    return coordinator
        .run(
            GROUP,
            shard -> {
              var offsets = shard.offsets();
              Map<Long, Map<String, Map<TopicPartition, CommittedOffset>>> pending =
                  new HashMap<>();
              for (long producerId : offsets.pending().producerIds()) {
                pending.put(producerId, offsets.pending().offsetsOf(producerId));
              }
              return CompletableFuture.completedFuture(
                  new State(
                      Map.copyOf(offsets.committed(GROUP)),
                      pending,
                      Set.copyOf(offsets.pending().partitions(GROUP))));
            })
        .get(10, TimeUnit.SECONDS);
  }
}
