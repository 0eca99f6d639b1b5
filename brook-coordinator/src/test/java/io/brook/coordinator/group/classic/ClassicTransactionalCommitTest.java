package io.brook.coordinator.group.classic;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.TxnResult;
import io.brook.coordinator.group.GroupCoordinatorShard;
import io.brook.coordinator.group.offsets.CommittedOffset;
import io.brook.coordinator.group.offsets.OffsetService.PartitionCommit;
import io.brook.coordinator.group.offsets.TransactionalOffsetCommits.TxnCommitRequest;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** TxnOffsetCommit against a classic group's membership (KIP-447 member fields, v3+). */
class ClassicTransactionalCommitTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final long PRODUCER = 42;

  private static Errors txnCommit(
      ClassicTestContext ctx, String memberId, String instanceId, int generation, long offset) {
    return ctx.shard
        .transactionalOffsets()
        .commit(
            new TxnCommitRequest(
                "txn",
                ClassicTestContext.GROUP,
                PRODUCER,
                (short) 0,
                memberId,
                instanceId,
                generation,
                (short) 3,
                Map.of(P0, new PartitionCommit(offset, -1, ""))))
        .join()
        .get(P0);
  }

  @Test
  void aMemberCommitsWithItsGenerationEvenDuringARebalance() {
    // Given a member that joined generation 1 and has not synced yet (CompletingRebalance)
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult joined = ctx.joinNew("c1").join();
    assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);

    // Then its transactional commit is accepted, unlike a plain one, and others are refused
    assertThat(txnCommit(ctx, joined.memberId(), null, 1, 10)).isEqualTo(Errors.NONE);
    assertThat(txnCommit(ctx, joined.memberId(), null, 2, 10)).isEqualTo(Errors.ILLEGAL_GENERATION);
    assertThat(txnCommit(ctx, "someone-else", null, 1, 10)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    assertThat(txnCommit(ctx, joined.memberId(), "unknown-instance", 1, 10))
        .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    // A producer outside the group (or an older client without member fields) may commit too
    assertThat(txnCommit(ctx, "", null, -1, 11)).isEqualTo(Errors.NONE);
  }

  @Test
  void theCommitMarkerMakesTheOffsetVisibleAndLoadingRebuildsIt() {
    ClassicTestContext ctx = ClassicTestContext.builder().build();
    JoinResult joined = ctx.joinNew("c1").join();
    ctx.leaderSync(joined, null).join();
    txnCommit(ctx, joined.memberId(), null, joined.generationId(), 15);
    assertThat(ctx.shard.offsets().committed(ClassicTestContext.GROUP, P0)).isEmpty();

    ctx.context.writeMarker(PRODUCER, (short) 0, 0, TxnResult.COMMIT).join();

    assertThat(ctx.shard.offsets().committed(ClassicTestContext.GROUP, P0))
        .map(CommittedOffset::offset)
        .contains(15L);
    GroupCoordinatorShard reloaded = ctx.reloaded();
    assertThat(reloaded.offsets().committed(ClassicTestContext.GROUP))
        .isEqualTo(ctx.shard.offsets().committed(ClassicTestContext.GROUP));
  }
}
