package io.brook.coordinator.group.consumer;

import static io.brook.coordinator.group.consumer.ConsumerGroupTestContext.join;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.group.offsets.OffsetService.PartitionCommit;
import io.brook.coordinator.group.offsets.TransactionalOffsetCommits.TxnCommitRequest;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** TxnOffsetCommit against a KIP-848 consumer group's members and epochs. */
class ConsumerGroupTransactionalCommitTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);

  private final ConsumerGroupTestContext ctx = new ConsumerGroupTestContext().topic("orders", 2);

  private Errors txnCommit(String memberId, int memberEpoch, short version) {
    return ctx.shard
        .transactionalOffsets()
        .commit(
            new TxnCommitRequest(
                "txn",
                ConsumerGroupTestContext.GROUP,
                7,
                (short) 0,
                memberId,
                null,
                memberEpoch,
                version,
                Map.of(P0, new PartitionCommit(3, -1, ""))))
        .join()
        .get(P0);
  }

  @Test
  void aMemberCommitsWithItsCurrentEpochOnly() {
    // Given member "a" at epoch 1
    ctx.heartbeat(join("a", "orders"));

    // Then its epoch is checked; a stale one is ILLEGAL_GENERATION before v6
    assertThat(txnCommit("a", 1, (short) 3)).isEqualTo(Errors.NONE);
    assertThat(txnCommit("a", 0, (short) 5)).isEqualTo(Errors.ILLEGAL_GENERATION);
    assertThat(txnCommit("a", 0, (short) 6)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
    assertThat(txnCommit("x", 1, (short) 5)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    // Without member fields (before v3, or a producer outside the group) nothing is checked
    assertThat(txnCommit("", -1, (short) 2)).isEqualTo(Errors.NONE);
  }
}
