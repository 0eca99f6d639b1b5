package io.brook.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.time.MockTime;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.IneligibleReplicaException;
import org.apache.kafka.common.errors.InvalidUpdateVersionException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's ISR and high watermark, and the follower's appends, on a real log. ISR changes go to
 * a recording sender whose answers the tests give.
 */
class PartitionTest {
  private static final long LAG_MS = 30_000;
  private static final TopicPartition TP = new TopicPartition("payments", 0);

  @TempDir Path dir;
  private final MockTime time = new MockTime();
  private final RecordingSender sender = new RecordingSender();
  private final List<TopicPartition> progress = new ArrayList<>();
  private final List<String> wakeUps = new ArrayList<>();
  private final List<Integer> fenced = new ArrayList<>();
  private PartitionLog log;

  @AfterEach
  void close() throws Exception {
    if (log != null) {
      log.close();
    }
  }

  private Partition partition(int brokerId, int minIsr, PartitionState state) throws Exception {
    log =
        PartitionLog.open(
            dir.resolve("payments-0"),
            LogConfig.builder().minInSyncReplicas(minIsr).build(),
            LogOpenOptions.defaults(TP, time));
    ReplicationContext context =
        new ReplicationContext(sender, id -> !fenced.contains(id), LAG_MS, time);
    Partition partition =
        new Partition(
            TP,
            Uuid.randomUuid(),
            brokerId,
            log,
            new PartitionState(-1, -1, -1, state.replicas(), state.isr()),
            new Partition.HighWatermarkListener() {
              @Override
              public void onProgress(TopicPartition tp) {
                progress.add(tp);
                wakeUps.add("all");
              }

              @Override
              public void onLogEndMoved(TopicPartition tp) {
                wakeUps.add("logEnd");
              }
            },
            context);
    partition.applyState(state);
    return partition;
  }

  private static PartitionState leaderState(List<Integer> isr) {
    return new PartitionState(1, 5, 7, List.of(1, 2, 3), isr);
  }

  private static MemoryRecords records(int count) {
    SimpleRecord[] records = new SimpleRecord[count];
    for (int i = 0; i < count; i++) {
      records[i] = new SimpleRecord(("v" + i).getBytes());
    }
    return MemoryRecords.withRecords(Compression.NONE, records);
  }

  @Test
  void highWatermarkIsTheSmallestLogEndOffsetInTheIsr() throws Exception {
    Partition leader = partition(1, 2, leaderState(List.of(1, 2, 3)));
    leader.appendAsLeader(records(10), (short) -1);
    assertThat(log.highWatermark()).isZero();

    leader.updateFollowerFetchState(2, 10, 0, 10, 100);
    assertThat(log.highWatermark()).as("broker 3 has nothing yet").isZero();
    assertThat(leader.acksAllOutcome(10, 5)).isEmpty();

    leader.updateFollowerFetchState(3, 4, 0, 10, 100);
    assertThat(log.highWatermark()).isEqualTo(4);
    leader.updateFollowerFetchState(3, 10, 0, 10, 100);
    assertThat(log.highWatermark()).isEqualTo(10);
    assertThat(leader.acksAllOutcome(10, 5)).contains(Errors.NONE);
    assertThat(sender.requests).as("no ISR change while everyone keeps up").isEmpty();
  }

  @Test
  void anAcksAllWaiterOnALogWhoseDirectoryFailedIsAnsweredAtOnce() throws Exception {
    Partition leader = partition(1, 2, leaderState(List.of(1, 2, 3)));
    leader.appendAsLeader(records(10), (short) -1);
    assertThat(leader.acksAllOutcome(10, 5)).isEmpty();

    log.markOffline("a test", new IOException("the disk is full"));

    assertThat(leader.acksAllOutcome(10, 5)).contains(Errors.KAFKA_STORAGE_ERROR);
  }

  @Test
  void aFollowerThatStopsFetchingLeavesTheIsrAfterTheLagTime() throws Exception {
    Partition leader = partition(1, 1, leaderState(List.of(1, 2, 3)));
    leader.appendAsLeader(records(10), (short) -1);
    leader.updateFollowerFetchState(2, 10, 0, 10, 100);

    time.sleep(LAG_MS - 1);
    leader.updateFollowerFetchState(2, 10, 0, 10, 100);
    leader.maybeShrinkIsr();
    assertThat(sender.requests).isEmpty();

    time.sleep(2);
    leader.updateFollowerFetchState(2, 10, 0, 10, 100);
    leader.maybeShrinkIsr();
    assertThat(sender.requests).hasSize(1);
    Request shrink = sender.requests.get(0);
    assertThat(shrink.isr()).containsExactly(1, 2);
    assertThat(shrink.partitionEpoch()).isEqualTo(7);
    assertThat(log.highWatermark()).as("the old ISR counts until committed").isZero();

    shrink.result().complete(new PartitionState(1, 5, 8, List.of(), List.of(1, 2)));
    assertThat(leader.state().isr()).containsExactly(1, 2);
    assertThat(leader.state().partitionEpoch()).isEqualTo(8);
    assertThat(log.highWatermark()).isEqualTo(10);
  }

  @Test
  void aWallClockSteppedForwardShrinksNoIsr() throws Exception {
    // Given: followers that keep up
    Partition leader = partition(1, 1, leaderState(List.of(1, 2, 3)));
    leader.appendAsLeader(records(10), (short) -1);
    leader.updateFollowerFetchState(2, 10, 0, 10, 100);
    leader.updateFollowerFetchState(3, 10, 0, 10, 300);
    leader.appendAsLeader(records(5), (short) -1);

    // When the wall clock jumps a day ahead (NTP, an operator) while little real time passes
    time.stepWallClock(86_400_000L);
    time.sleep(1);
    leader.maybeShrinkIsr();

    // Then
    assertThat(sender.requests).isEmpty();
  }

  @Test
  void aWallClockSteppedBackKeepsNoSilentFollowerInTheIsr() throws Exception {
    // Given: broker 3 stops fetching, broker 2 keeps up
    Partition leader = partition(1, 1, leaderState(List.of(1, 2, 3)));
    leader.appendAsLeader(records(10), (short) -1);
    leader.updateFollowerFetchState(3, 10, 0, 10, 300);
    leader.appendAsLeader(records(5), (short) -1);

    // When the wall clock is stepped an hour back, then the lag time passes
    time.stepWallClock(-3_600_000L);
    time.sleep(LAG_MS + 1);
    leader.updateFollowerFetchState(2, 15, 0, 15, 100);
    leader.maybeShrinkIsr();

    // Then broker 3 leaves the ISR as without the step
    assertThat(sender.requests).hasSize(1);
    assertThat(sender.requests.get(0).isr()).containsExactly(1, 2);
  }

  @Test
  void aCaughtUpFollowerIsAddedAndCountsForTheHighWatermarkWhilePending() throws Exception {
    Partition leader = partition(1, 1, leaderState(List.of(1, 2)));
    leader.appendAsLeader(records(10), (short) 1);
    leader.updateFollowerFetchState(2, 10, 0, 10, 100);
    assertThat(log.highWatermark()).isEqualTo(10);

    leader.appendAsLeader(records(5), (short) 1);
    leader.updateFollowerFetchState(3, 6, 0, 15, 300);
    assertThat(sender.requests).as("below the high watermark: not yet").isEmpty();
    leader.updateFollowerFetchState(3, 12, 0, 15, 300);
    assertThat(sender.requests).hasSize(1);
    assertThat(sender.requests.get(0).isr()).containsExactly(1, 2, 3);
    assertThat(sender.requests.get(0).members())
        .contains(new IsrChangeSender.Member(3, 300), new IsrChangeSender.Member(2, 100));

    leader.updateFollowerFetchState(2, 15, 0, 15, 100);
    assertThat(log.highWatermark()).as("broker 3 may already be in sync").isEqualTo(12);
    sender
        .requests
        .get(0)
        .result()
        .complete(new PartitionState(1, 5, 8, List.of(), List.of(1, 2, 3)));
    assertThat(leader.state().isr()).containsExactly(1, 2, 3);
  }

  @Test
  void aFencedBrokerIsNotAdded() throws Exception {
    fenced.add(3);
    Partition leader = partition(1, 1, leaderState(List.of(1, 2)));
    leader.updateFollowerFetchState(3, 0, 0, 0, 300);
    assertThat(sender.requests).isEmpty();
  }

  @Test
  void aFollowerThatHasNotRegisteredIsNotAdded() throws Exception {
    Partition leader = partition(1, 1, leaderState(List.of(1, 2)));
    leader.updateFollowerFetchState(3, 0, 0, 0, -1);
    assertThat(sender.requests).isEmpty();
    leader.updateFollowerFetchState(3, 0, 0, 0, 300);
    assertThat(sender.requests).hasSize(1);
  }

  @Test
  void aRefusedChangeIsRetriedAfterAPause() throws Exception {
    Partition leader = partition(1, 1, leaderState(List.of(1, 2)));
    leader.updateFollowerFetchState(3, 0, 0, 0, 300);
    // INELIGIBLE_REPLICA is checked at the current partition epoch: certainly not applied
    sender.requests.get(0).result().completeExceptionally(new IneligibleReplicaException("x"));
    assertThat(leader.maximalIsr()).containsExactly(1, 2);

    leader.updateFollowerFetchState(3, 0, 0, 0, 300);
    assertThat(sender.requests).hasSize(1);
    time.sleep(Partition.ISR_CHANGE_RETRY_MS);
    leader.updateFollowerFetchState(3, 0, 0, 0, 300);
    assertThat(sender.requests).hasSize(2);
  }

  @Test
  void anExpansionLeftUnansweredStillCountsTheNewMemberAndIsSentAgain() throws Exception {
    // Given broker 3 caught up and proposed for the ISR
    Partition leader = partition(1, 2, leaderState(List.of(1, 2)));
    leader.updateFollowerFetchState(3, 0, 0, 0, 300);
    assertThat(sender.requests).hasSize(1);

    // When the controller's answer never comes (it may have committed the change)
    sender
        .requests
        .get(0)
        .result()
        .completeExceptionally(new TimeoutException("no answer from the controller"));

    // Then a write is not committed until broker 3 has it too: the controller may already count
    // it in the ISR and elect it next
    assertThat(leader.maximalIsr()).containsExactly(1, 2, 3);
    leader.appendAsLeader(records(4), (short) -1);
    leader.updateFollowerFetchState(2, 4, 0, 4, 100);
    assertThat(log.highWatermark()).isZero();
    assertThat(leader.acksAllOutcome(4, 5)).isEmpty();

    // And the same change goes out again after the pause, on a follower's fetch
    leader.updateFollowerFetchState(3, 0, 0, 4, 300);
    assertThat(sender.requests).hasSize(1);
    time.sleep(Partition.ISR_CHANGE_RETRY_MS);
    leader.updateFollowerFetchState(3, 0, 0, 4, 300);
    assertThat(sender.requests).hasSize(2);
    assertThat(sender.requests.get(1).isr()).containsExactly(1, 2, 3);
    assertThat(sender.requests.get(1).partitionEpoch()).isEqualTo(7);

    // And its answer (the controller's current state, for a retry of an applied change) settles it
    sender
        .requests
        .get(1)
        .result()
        .complete(new PartitionState(1, 5, 8, List.of(), List.of(1, 2, 3)));
    assertThat(leader.state().isr()).containsExactly(1, 2, 3);
    leader.updateFollowerFetchState(3, 4, 0, 4, 300);
    assertThat(log.highWatermark()).isEqualTo(4);
  }

  @Test
  void aShrinkLeftUnansweredKeepsWaitingForTheDroppedMemberAndIsSentAgainByTheCheck()
      throws Exception {
    // Given broker 3 dropped from the ISR for lagging
    Partition leader = partition(1, 2, leaderState(List.of(1, 2, 3)));
    leader.appendAsLeader(records(4), (short) -1);
    leader.updateFollowerFetchState(2, 4, 0, 4, 100);
    time.sleep(LAG_MS + 1);
    leader.updateFollowerFetchState(2, 4, 0, 4, 100);
    leader.maybeShrinkIsr();
    assertThat(sender.requests).hasSize(1);
    assertThat(sender.requests.get(0).isr()).containsExactly(1, 2);

    // When the answer is lost
    sender.requests.get(0).result().completeExceptionally(new TimeoutException("lost"));

    // Then the high watermark still waits for broker 3 (the shrink may not have been applied)
    assertThat(leader.maximalIsr()).containsExactly(1, 2, 3);
    assertThat(log.highWatermark()).isZero();

    // And the periodic check sends the same shrink again after the pause
    leader.maybeShrinkIsr();
    assertThat(sender.requests).hasSize(1);
    time.sleep(Partition.ISR_CHANGE_RETRY_MS);
    leader.maybeShrinkIsr();
    assertThat(sender.requests).hasSize(2);
    assertThat(sender.requests.get(1).isr()).containsExactly(1, 2);
  }

  @Test
  void aChangeAnsweredWithAStaleEpochWaitsForTheMetadata() throws Exception {
    // Given an expansion of the ISR answered INVALID_UPDATE_VERSION (an earlier attempt, whose
    // answer was lost, may have been applied)
    Partition leader = partition(1, 2, leaderState(List.of(1, 2)));
    leader.updateFollowerFetchState(3, 0, 0, 0, 300);
    sender.requests.get(0).result().completeExceptionally(new InvalidUpdateVersionException("x"));

    // Then broker 3 still counts, nothing is proposed or sent again meanwhile
    assertThat(leader.maximalIsr()).containsExactly(1, 2, 3);
    time.sleep(Partition.ISR_CHANGE_RETRY_MS * 10);
    leader.updateFollowerFetchState(3, 0, 0, 0, 300);
    leader.maybeShrinkIsr();
    assertThat(sender.requests).hasSize(1);

    // And the metadata settles it
    leader.applyState(new PartitionState(1, 5, 8, List.of(1, 2, 3), List.of(1, 2, 3)));
    assertThat(leader.maximalIsr()).containsExactly(1, 2, 3);
    assertThat(leader.state().partitionEpoch()).isEqualTo(8);
  }

  @Test
  void acksAllIsRefusedBelowMinIsrAndNothingCommitsBelowIt() throws Exception {
    Partition small = partition(1, 2, leaderState(List.of(1)));
    assertThatThrownBy(() -> small.appendAsLeader(records(1), (short) -1))
        .isInstanceOf(NotEnoughReplicasException.class);
    small.appendAsLeader(records(1), (short) 1);
    // Strict min ISR (KIP-966): the high watermark waits for the ISR to reach min ISR again.
    small.maybeIncrementHighWatermark();
    assertThat(log.highWatermark()).isZero();
    assertThat(small.acksAllOutcome(1, 5)).isEmpty();
    assertThat(small.acksAllOutcome(1, 4)).contains(Errors.NOT_LEADER_OR_FOLLOWER);
  }

  @Test
  void metadataOlderThanACommittedIsrChangeIsIgnored() throws Exception {
    Partition leader = partition(1, 1, leaderState(List.of(1, 2)));
    leader.updateFollowerFetchState(3, 0, 0, 0, 300);
    sender
        .requests
        .get(0)
        .result()
        .complete(new PartitionState(1, 5, 8, List.of(), List.of(1, 2, 3)));

    leader.applyState(leaderState(List.of(1, 2)));
    assertThat(leader.state().isr()).containsExactly(1, 2, 3);
  }

  @Test
  void aFollowerKeepsTheLeadersOffsetsAndEpochsAndTakesItsHighWatermark() throws Exception {
    Partition follower = partition(2, 1, leaderState(List.of(1, 2, 3)));
    assertThat(follower.isFollower()).isTrue();

    follower.appendAsFollower(
        MemoryRecords.withRecords(0L, Compression.NONE, 3, record("a"), record("b")), 1, 0);
    follower.appendAsFollower(
        MemoryRecords.withRecords(2L, Compression.NONE, 5, record("c")), 10, 0);
    assertThat(log.logEndOffset()).isEqualTo(3);
    assertThat(log.highWatermark()).as("never past its own log end").isEqualTo(3);
    assertThat(log.leaderEpochCache().entries()).hasSize(2);
    assertThat(log.endOffsetForEpoch(3).endOffset()).isEqualTo(2);
    assertThat(progress).contains(TP);

    follower.truncateAsFollower(2);
    assertThat(log.logEndOffset()).isEqualTo(2);
    assertThat(log.leaderEpochCache().latestEpoch().orElse(-1)).isEqualTo(3);
  }

  @Test
  void aNewLeaderIgnoresLateFollowerAppendsAndStartsItsEpochAtItsLogEnd() throws Exception {
    Partition partition = partition(2, 1, leaderState(List.of(1, 2, 3)));
    partition.appendAsFollower(
        MemoryRecords.withRecords(0L, Compression.NONE, 5, record("a")), 1, 0);

    partition.applyState(new PartitionState(2, 6, 8, List.of(1, 2, 3), List.of(2, 3)));
    partition.appendAsFollower(
        MemoryRecords.withRecords(1L, Compression.NONE, 5, record("b")), 2, 0);

    assertThat(log.logEndOffset()).isEqualTo(1);
    assertThat(log.endOffsetForEpoch(5).endOffset()).isEqualTo(1);
    assertThat(log.leaderEpochCache().latestEpoch().orElse(-1)).isEqualTo(6);
  }

  @Test
  void onlyAHighWatermarkMoveWakesEveryWaiterAndAFollowerFetchThatMovesNothingWakesNone()
      throws Exception {
    // Given: a leader of three replicas, followers at 0 (their log starts unreported: a start
    // that moves wakes waiters too, for DeleteRecords)
    Partition leader = partition(1, 1, leaderState(List.of(1, 2, 3)));
    wakeUps.clear();

    // When: an append the followers have not fetched
    leader.appendAsLeader(records(10), (short) 1);
    // Then: only waits on the log end (follower fetches) are re-checked
    assertThat(wakeUps).containsExactly("logEnd");

    // When: one follower catches up, which does not move the high watermark
    wakeUps.clear();
    leader.updateFollowerFetchState(2, 10, -1, 10, 100);
    // Then: nothing any waiter reads moved
    assertThat(wakeUps).isEmpty();

    // When: the last follower catches up and the high watermark moves
    leader.updateFollowerFetchState(3, 10, -1, 10, 100);
    // Then: everything waiting on the partition is re-checked
    assertThat(log.highWatermark()).isEqualTo(10);
    assertThat(wakeUps).containsExactly("all");

    // When: a new leader epoch arrives without a high watermark move
    wakeUps.clear();
    leader.applyState(new PartitionState(1, 6, 8, List.of(1, 2, 3), List.of(1, 2, 3)));
    // Then: acks=all waiters of the old epoch hear about it
    assertThat(wakeUps).containsExactly("all");
  }

  @Test
  void truncationAndRestartOfAFollowerWakeItsWaiters() throws Exception {
    // Given: a follower with three records
    Partition follower = partition(2, 1, leaderState(List.of(1, 2, 3)));
    follower.appendAsFollower(
        MemoryRecords.withRecords(0L, Compression.NONE, 3, record("a"), record("b")), 0, 0);
    follower.appendAsFollower(
        MemoryRecords.withRecords(2L, Compression.NONE, 3, record("c")), 0, 0);
    wakeUps.clear();

    // When / Then: consumers parked on this follower (KIP-392) re-check after a truncation
    follower.truncateAsFollower(2);
    assertThat(wakeUps).containsExactly("all");

    // When / Then: and after the log starts afresh
    wakeUps.clear();
    follower.restartAsFollowerAt(50);
    assertThat(wakeUps).containsExactly("all");
  }

  @Test
  void aRemovedPartitionAnswersItsAcksAllWaitersAndRefusesAppends() throws Exception {
    // Given: an acks=all append waiting for the followers
    Partition leader = partition(1, 1, leaderState(List.of(1, 2, 3)));
    leader.appendAsLeader(records(5), (short) -1);
    assertThat(leader.acksAllOutcome(5, 5)).isEmpty();
    wakeUps.clear();

    // When: the broker stops hosting the partition (topic deleted, or moved away)
    leader.markRemoved();

    // Then: the waiters are told and learn the partition is no longer led here
    assertThat(wakeUps).containsExactly("all");
    assertThat(leader.acksAllOutcome(5, 5)).contains(Errors.NOT_LEADER_OR_FOLLOWER);
    assertThatThrownBy(() -> leader.appendAsLeader(records(1), (short) 1))
        .isInstanceOf(NotLeaderOrFollowerException.class);
    assertThat(leader.isFollower()).isFalse();
  }

  private static SimpleRecord record(String value) {
    return new SimpleRecord(value.getBytes());
  }

  @Test
  void aFollowerFetchReadsToTheLogEndAndAnswersWithTheHighWatermarkItMoved() throws Exception {
    // Given: a leader with 10 records, broker 3 caught up, broker 2 not yet fetched
    Partition leader = partition(1, 1, leaderState(List.of(1, 2, 3)));
    leader.appendAsLeader(records(10), (short) 1);
    leader.fetchFromFollower(3, 300, 10, 0, 5, 1 << 20, true);

    // When: broker 2 fetches from offset 0
    FollowerRead read = leader.fetchFromFollower(2, 200, 0, 0, -1, 1 << 20, true);

    // Then: it gets the records up to the log end, and the high watermark its own fetch moved
    assertThat(read.diverged()).isFalse();
    assertThat(read.read().slice().sizeInBytes()).isPositive();
    assertThat(read.highWatermark()).isEqualTo(0);
    FollowerRead next = leader.fetchFromFollower(2, 200, 10, 0, 5, 1 << 20, true);
    assertThat(next.highWatermark()).isEqualTo(10);
    assertThat(leader.followerLogEndOffset(2)).isEqualTo(10);
  }

  @Test
  void aFollowerWhoseLastEpochEndsBeforeItsFetchOffsetIsToldWhereToTruncate() throws Exception {
    // Given: 10 records in epoch 5, then 5 in epoch 7
    Partition leader = partition(1, 1, leaderState(List.of(1, 2, 3)));
    leader.appendAsLeader(records(10), (short) 1);
    leader.applyState(new PartitionState(1, 7, 8, List.of(1, 2, 3), List.of(1, 2, 3)));
    leader.appendAsLeader(records(5), (short) 1);

    // When: broker 2, which wrote offsets 10 and 11 in epoch 5 elsewhere, fetches from 12
    FollowerRead read = leader.fetchFromFollower(2, 200, 12, 0, 5, 1 << 20, true);

    // Then: it must truncate to where epoch 5 ends here, and its position is not recorded
    assertThat(read.diverged()).isTrue();
    assertThat(read.divergingEpoch().epoch()).isEqualTo(5);
    assertThat(read.divergingEpoch().endOffset()).isEqualTo(10);
    assertThat(leader.followerLogEndOffset(2)).isEqualTo(-1);
  }

  @Test
  void aFetchFromABrokerThatIsNotAReplicaIsRefused() throws Exception {
    Partition leader = partition(1, 1, leaderState(List.of(1, 2, 3)));
    assertThatThrownBy(() -> leader.fetchFromFollower(4, 400, 0, 0, -1, 1 << 20, true))
        .isInstanceOf(NotLeaderOrFollowerException.class);
  }

  private record Request(
      int leaderEpoch,
      int partitionEpoch,
      List<Integer> isr,
      List<IsrChangeSender.Member> members,
      CompletableFuture<PartitionState> result) {}

  private static final class RecordingSender implements IsrChangeSender {
    final List<Request> requests = new ArrayList<>();

    @Override
    public CompletableFuture<PartitionState> alterIsr(
        Uuid topicId, int partition, int leaderEpoch, int partitionEpoch, List<Member> newIsr) {
      CompletableFuture<PartitionState> result = new CompletableFuture<>();
      requests.add(
          new Request(
              leaderEpoch,
              partitionEpoch,
              newIsr.stream().map(Member::brokerId).toList(),
              newIsr,
              result));
      return result;
    }
  }
}
