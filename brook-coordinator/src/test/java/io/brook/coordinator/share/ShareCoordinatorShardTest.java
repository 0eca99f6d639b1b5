package io.brook.coordinator.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.GeneratedRecords;
import io.brook.coordinator.share.ShareCoordinatorShard.Outcome;
import io.brook.coordinator.testing.FakeShardContext;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.coordinator.share.generated.ShareUpdateKey;
import org.apache.kafka.coordinator.share.generated.ShareUpdateValue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ShareCoordinatorShardTest {
  private static final Uuid TOPIC = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
  private static final ShareStateKey KEY = new ShareStateKey("g", TOPIC, 3);

  private FakeShardContext context;
  private ShareCoordinatorShard shard;

  @BeforeEach
  void setUp() {
    context = new FakeShardContext(7, 1_000L);
    shard = new ShareCoordinatorShard(context);
    context.attach(shard);
  }

  private static StateBatch batch(long first, long last, byte state, int count) {
    return new StateBatch(first, last, state, (short) count);
  }

  @Test
  void readOfAnUninitializedSharePartitionHasNoState() {
    Outcome read = shard.read(KEY, 0).join();
    assertThat(read.error()).isEqualTo(Errors.NONE);
    assertThat(read.state()).isNull();
    assertThat(context.records()).isEmpty();
  }

  @Test
  void writesMergeIntoTheStateAndALoadRebuildsIt() {
    assertThat(shard.initialize(KEY, 0, 100).join().error()).isEqualTo(Errors.NONE);
    shard
        .write(
            KEY,
            0,
            1,
            100,
            List.of(
                batch(100, 104, StateBatch.ACKNOWLEDGED, 1),
                batch(105, 109, StateBatch.AVAILABLE, 1)))
        .join();
    // The next acknowledgement: 105-106 done, the start offset passes 100-106.
    Outcome written =
        shard.write(KEY, 0, 1, 107, List.of(batch(105, 106, StateBatch.ARCHIVED, 2))).join();
    assertThat(written.error()).isEqualTo(Errors.NONE);
    assertThat(written.state().startOffset()).isEqualTo(107);
    assertThat(written.state().batches()).containsExactly(batch(107, 109, StateBatch.AVAILABLE, 1));

    ShareCoordinatorShard loaded = new ShareCoordinatorShard(context);
    context.replayInto(loaded);
    ShareState state = loaded.state(KEY).orElseThrow();
    assertThat(state.startOffset()).isEqualTo(107);
    assertThat(state.leaderEpoch()).isEqualTo(1);
    assertThat(state.batches()).containsExactly(batch(107, 109, StateBatch.AVAILABLE, 1));
    // Every write is a whole snapshot: compaction keeps just the latest.
    assertThat(context.records())
        .allMatch(r -> r.type() == ShareStateRecords.SNAPSHOT && !r.isTombstone());
  }

  @Test
  void overlappingBatchesAreReplacedAndAdjacentOnesJoined() {
    List<StateBatch> merged =
        ShareState.combine(
            List.of(batch(10, 19, StateBatch.AVAILABLE, 1), batch(20, 29, StateBatch.ACQUIRED, 1)),
            List.of(batch(15, 22, StateBatch.ACKNOWLEDGED, 1)),
            12);
    assertThat(merged)
        .containsExactly(
            batch(12, 14, StateBatch.AVAILABLE, 1),
            batch(15, 22, StateBatch.ACKNOWLEDGED, 1),
            batch(23, 29, StateBatch.ACQUIRED, 1));
    assertThat(
            ShareState.combine(
                List.of(batch(0, 4, StateBatch.AVAILABLE, 2)),
                List.of(batch(5, 9, StateBatch.AVAILABLE, 2)),
                0))
        .containsExactly(batch(0, 9, StateBatch.AVAILABLE, 2));
  }

  @Test
  void aNewerLeaderEpochFencesTheOldLeader() {
    shard.initialize(KEY, 0, 0).join();
    shard.write(KEY, 0, 4, 0, List.of()).join();
    Outcome read = shard.read(KEY, 5).join();
    assertThat(read.error()).isEqualTo(Errors.NONE);
    assertThat(read.state().leaderEpoch()).isEqualTo(5);
    assertThat(shard.write(KEY, 0, 4, 3, List.of()).join().error())
        .isEqualTo(Errors.FENCED_LEADER_EPOCH);
    assertThat(shard.read(KEY, 4).join().error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
    // The recorded epoch survives a load.
    ShareCoordinatorShard loaded = new ShareCoordinatorShard(context);
    context.replayInto(loaded);
    assertThat(loaded.state(KEY).orElseThrow().leaderEpoch()).isEqualTo(5);
  }

  @Test
  void initializingAgainMovesTheStateEpochAndFencesOlderWriters() {
    shard.initialize(KEY, 0, 0).join();
    shard.write(KEY, 0, 1, 0, List.of(batch(0, 9, StateBatch.ACKNOWLEDGED, 1))).join();
    Outcome reset = shard.initialize(KEY, 1, 500).join();
    assertThat(reset.state().startOffset()).isEqualTo(500);
    assertThat(reset.state().batches()).isEmpty();
    assertThat(shard.write(KEY, 0, 1, 10, List.of()).join().error())
        .isEqualTo(Errors.FENCED_STATE_EPOCH);
    assertThat(shard.initialize(KEY, 0, 0).join().error()).isEqualTo(Errors.FENCED_STATE_EPOCH);
  }

  @Test
  void deleteTombstonesTheSharePartition() {
    shard.initialize(KEY, 0, 0).join();
    shard.delete(KEY).join();
    assertThat(shard.state(KEY)).isEmpty();
    ShareCoordinatorShard loaded = new ShareCoordinatorShard(context);
    context.replayInto(loaded);
    assertThat(loaded.state(KEY)).isEmpty();
    assertThat(loaded.size()).isZero();
  }

  @Test
  void loadingAppliesKafkasUpdateRecordsOnTheSnapshot() {
    shard.initialize(KEY, 0, 0).join();
    shard.write(KEY, 0, 1, 0, List.of(batch(0, 9, StateBatch.AVAILABLE, 1))).join();
    CoordinatorRecord update =
        GeneratedRecords.record(
            new ShareUpdateKey().setGroupId("g").setTopicId(TOPIC).setPartition(3),
            (short) 0,
            new ShareUpdateValue()
                .setSnapshotEpoch(1)
                .setLeaderEpoch(1)
                .setStartOffset(3)
                .setStateBatches(
                    List.of(
                        new ShareUpdateValue.StateBatch()
                            .setFirstOffset(3)
                            .setLastOffset(4)
                            .setDeliveryState(StateBatch.ACKNOWLEDGED)
                            .setDeliveryCount((short) 1))));
    shard.replay(update, 99);
    assertThat(shard.state(KEY).orElseThrow().batches())
        .containsExactly(
            batch(3, 4, StateBatch.ACKNOWLEDGED, 1), batch(5, 9, StateBatch.AVAILABLE, 1));
  }

  @Test
  void snapshotsAreKafkasBytes() {
    ShareState state =
        new ShareState(2, 1, 3, 40, 5L, 6L, List.of(batch(40, 41, StateBatch.ARCHIVED, 5)));
    CoordinatorRecord record = ShareStateRecords.snapshot(KEY, state);
    assertThat(record.type()).isZero();
    assertThat(ShareStateRecords.key(record)).isEqualTo(KEY);
    assertThat(ShareStateRecords.readSnapshot(record)).isEqualTo(state);
    assertThat(state.deliveryCompleteCount()).isEqualTo(2);
  }
}
