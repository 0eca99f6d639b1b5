package io.brook.coordinator.group.offsets;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.group.offsets.OffsetService.CommitRequest;
import io.brook.coordinator.group.offsets.OffsetService.PartitionCommit;
import io.brook.coordinator.group.offsets.TransactionalOffsetCommits.TxnCommitRequest;
import io.brook.coordinator.testing.FakeShardContext;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Pending transactional offsets against expiry, deletion and loading, on one shard. */
class TransactionalOffsetsTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);
  private static final long RETENTION_MS = GroupConfig.defaults().offsetsRetentionMs();

  private final FakeShardContext context = new FakeShardContext(0, 1_000_000L);
  private GroupCoordinatorShard shard;

  @BeforeEach
  void setUp() {
    shard = new GroupCoordinatorShard(context, GroupConfig.defaults());
    context.attach(shard);
    shard.onLoaded();
  }

  private Map<TopicPartition, Errors> txnCommit(
      String group, long producerId, short epoch, TopicPartition tp, long offset) {
    return shard
        .transactionalOffsets()
        .commit(
            new TxnCommitRequest(
                "txn",
                group,
                producerId,
                epoch,
                "",
                null,
                -1,
                (short) 5,
                Map.of(tp, new PartitionCommit(offset, -1, ""))))
        .join();
  }

  private void plainCommit(String group, TopicPartition tp, long offset) {
    shard
        .offsetService()
        .commit(
            new CommitRequest(
                group, "", null, -1, (short) 9, Map.of(tp, new PartitionCommit(offset, -1, ""))))
        .join();
  }

  private void marker(long producerId, short epoch, TxnResult result) {
    context.writeMarker(producerId, epoch, 0, result).join();
  }

  private Long committed(String group, TopicPartition tp) {
    return shard.offsets().committed(group, tp).map(CommittedOffset::offset).orElse(null);
  }

  @Test
  void aPendingOffsetKeepsItsPartitionAndItsGroupFromExpiring() {
    // Given an old plain commit and an open transaction on the same partition
    plainCommit("g", P0, 5);
    txnCommit("g", 1, (short) 0, P0, 6);

    // When retention passes, the offset stays while the transaction is open
    context.advance(RETENTION_MS + 600_000);
    assertThat(committed("g", P0)).isEqualTo(5L);
    assertThat(shard.listings().list(Set.of(), Set.of()))
        .extracting(listed -> listed.groupId())
        .containsExactly("g");

    // Then once it aborts, the next check expires it
    marker(1, (short) 0, TxnResult.ABORT);
    context.advance(600_000);
    assertThat(shard.offsets().hasOffsetsOrPending("g")).isFalse();
  }

  @Test
  void aTransactionOnlyGroupExistsAndDeletingItDropsItsPendingOffsets() {
    // Given a group known only through an open transaction
    txnCommit("g", 2, (short) 0, P1, 9);
    assertThat(shard.offsetService().exists("g")).isTrue();

    // When it is deleted, then the transaction's COMMIT brings nothing back
    assertThat(shard.listings().delete("g").join()).isEqualTo(Errors.NONE);
    assertThat(shard.offsets().pending().hasPending("g")).isFalse();
    marker(2, (short) 0, TxnResult.COMMIT);
    assertThat(shard.offsetService().exists("g")).isFalse();
  }

  @Test
  void offsetDeleteDropsThePendingOffsetOfThePartition() {
    txnCommit("g", 3, (short) 0, P0, 4);
    txnCommit("g", 3, (short) 0, P1, 4);
    assertThat(shard.offsetService().delete("g", List.of(P0)).join().partitions())
        .containsEntry(P0, Errors.NONE);
    marker(3, (short) 0, TxnResult.COMMIT);
    assertThat(shard.offsets().committed("g")).containsOnlyKeys(P1);
  }

  @Test
  void unstablePartitionsAreThoseWithAPendingOffset() {
    plainCommit("g", P0, 1);
    plainCommit("g", P1, 1);
    txnCommit("g", 4, (short) 0, P1, 2);
    assertThat(shard.offsetService().unstablePartitions("g", null)).containsExactly(P1);
    assertThat(shard.offsetService().unstablePartitions("g", List.of(P0))).isEmpty();
    marker(4, (short) 0, TxnResult.COMMIT);
    assertThat(shard.offsetService().unstablePartitions("g", null)).isEmpty();
    assertThat(committed("g", P1)).isEqualTo(2L);
  }

  @Test
  void anOlderEpochIsFencedAndItsOffsetsNeverPend() {
    txnCommit("g", 5, (short) 3, P0, 1);
    assertThat(txnCommit("g", 5, (short) 2, P1, 1)).containsEntry(P1, Errors.PRODUCER_FENCED);
    assertThat(shard.offsets().pending().partitions("g")).containsExactly(P0);
  }

  @Test
  void replayingTheWritesRebuildsTheSameOffsets() {
    txnCommit("g", 6, (short) 0, P0, 10);
    marker(6, (short) 0, TxnResult.COMMIT);
    txnCommit("g", 7, (short) 0, P0, 20);
    marker(7, (short) 0, TxnResult.ABORT);
    txnCommit("g", 8, (short) 0, P1, 30);

    FakeShardContext fresh = new FakeShardContext(0, context.nowMs());
    GroupCoordinatorShard loaded = new GroupCoordinatorShard(fresh, GroupConfig.defaults());
    fresh.attach(loaded);
    context.replayInto(loaded);

    assertThat(loaded.offsets().committed("g")).isEqualTo(shard.offsets().committed("g"));
    assertThat(loaded.offsets().pending().producerIds()).containsExactly(8L);
    assertThat(loaded.offsets().pending().offsetsOf(8))
        .isEqualTo(shard.offsets().pending().offsetsOf(8));
  }
}
