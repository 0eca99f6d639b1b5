package io.brook.broker.replica.fetcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.PartitionState;
import io.brook.broker.replica.ReplicationContext;
import io.brook.storage.epoch.EpochEndOffset;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower's log against the leader's, both real: the diverging epoch the leader would answer
 * (its {@code endOffsetForEpoch} of the follower's last epoch) makes the follower cut exactly the
 * tail the leader never had.
 */
class FollowerTruncationTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);

  @TempDir Path dir;
  private final List<PartitionLog> logs = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (PartitionLog log : logs) {
      log.close();
    }
  }

  private PartitionLog log(String name) throws Exception {
    PartitionLog log =
        PartitionLog.open(
            dir.resolve(name), LogConfig.defaults(), LogOpenOptions.defaults(TP, Time.SYSTEM));
    logs.add(log);
    return log;
  }

  /** A follower of broker 1 at leader epoch 3, on {@code log}. */
  private static Partition follower(PartitionLog log) {
    PartitionState state = new PartitionState(1, 3, 3, List.of(1, 2), List.of(1, 2));
    Partition partition =
        new Partition(TP, Uuid.ZERO_UUID, 2, log, state, tp -> {}, ReplicationContext.standalone());
    return partition;
  }

  private static void append(PartitionLog log, long offset, int epoch, int count) {
    SimpleRecord[] records = new SimpleRecord[count];
    for (int i = 0; i < count; i++) {
      records[i] = new SimpleRecord(("e" + epoch + "-" + i).getBytes());
    }
    log.appendAsFollower(MemoryRecords.withRecords(offset, Compression.NONE, epoch, records));
  }

  private static FetchResponseData.EpochEndOffset answer(
      PartitionLog leader, int lastFetchedEpoch) {
    EpochEndOffset end = leader.endOffsetForEpoch(lastFetchedEpoch);
    return new FetchResponseData.EpochEndOffset()
        .setEpoch(end.epoch())
        .setEndOffset(end.endOffset());
  }

  @Test
  void aDeposedLeaderDropsItsUncommittedEpoch() throws Exception {
    // Leader: epoch 0 at 0-4, epoch 2 at 5-9. Follower (the old epoch-1 leader): epoch 0 at 0-4,
    // epoch 1 at 5-7, never committed.
    PartitionLog leader = log("leader");
    append(leader, 0, 0, 5);
    append(leader, 5, 2, 5);
    PartitionLog followerLog = log("follower");
    append(followerLog, 0, 0, 5);
    append(followerLog, 5, 1, 3);

    FetchResponseData.EpochEndOffset diverging = answer(leader, 1);
    assertThat(diverging.epoch()).isZero();
    assertThat(diverging.endOffset()).isEqualTo(5);
    FollowerTruncation.onDivergingEpoch(follower(followerLog), diverging);

    assertThat(followerLog.logEndOffset()).isEqualTo(5);
    assertThat(followerLog.leaderEpochCache().latestEpoch().orElse(-1)).isZero();
    assertThat(leader.endOffsetForEpoch(0)).isEqualTo(followerLog.endOffsetForEpoch(0));
  }

  @Test
  void aFollowerWithALongerSameEpochKeepsOnlyWhatTheLeaderHas() throws Exception {
    PartitionLog leader = log("leader");
    append(leader, 0, 1, 4);
    append(leader, 4, 3, 1);
    // The follower has the leader's epoch-1 batch and one more the leader never got.
    PartitionLog followerLog = log("follower");
    append(followerLog, 0, 1, 4);
    append(followerLog, 4, 1, 2);

    FollowerTruncation.onDivergingEpoch(follower(followerLog), answer(leader, 1));
    assertThat(followerLog.logEndOffset()).isEqualTo(4);
  }

  @Test
  void aFollowerWhoseEpochTheLeaderSkippedCutsToItsOwnEpochEndAndChecksAgain() throws Exception {
    // Leader: epoch 0 at 0-2, epoch 4 at 3. Follower: epoch 0 at 0-2, epoch 2 at 3-4, epoch 3 at 5.
    PartitionLog leader = log("leader");
    append(leader, 0, 0, 3);
    append(leader, 3, 4, 1);
    PartitionLog followerLog = log("follower");
    append(followerLog, 0, 0, 3);
    append(followerLog, 3, 2, 2);
    append(followerLog, 5, 3, 1);
    Partition follower = follower(followerLog);

    // The follower's last epoch is 3: the leader's floor is epoch 0, ending at 3.
    FollowerTruncation.onDivergingEpoch(follower, answer(leader, 3));
    assertThat(followerLog.logEndOffset()).isEqualTo(3);
    assertThat(followerLog.leaderEpochCache().latestEpoch().orElse(-1)).isZero();
  }

  @Test
  void aFollowerBehindTheLeadersLogStartStartsOverThere() throws Exception {
    PartitionLog followerLog = log("follower");
    append(followerLog, 0, 0, 2);
    FollowerTruncation.onOutOfRange(follower(followerLog), 2, 100, 120);
    assertThat(followerLog.logStartOffset()).isEqualTo(100);
    assertThat(followerLog.logEndOffset()).isEqualTo(100);
  }
}
