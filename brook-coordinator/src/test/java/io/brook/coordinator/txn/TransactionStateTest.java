package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TransactionStateTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);

  @Test
  void idsAndNamesAreKafkas() {
    assertThat(TransactionState.fromId((byte) 2)).isEqualTo(TransactionState.PREPARE_COMMIT);
    assertThat(TransactionState.fromId((byte) 7)).isEqualTo(TransactionState.PREPARE_EPOCH_FENCE);
    assertThat(TransactionState.fromName("CompleteAbort"))
        .contains(TransactionState.COMPLETE_ABORT);
    assertThat(TransactionState.fromName("nope")).isEmpty();
    assertThatThrownBy(() -> TransactionState.fromId((byte) 8))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aTransactionGoesThroughItsStates() {
    TxnMetadata txn = TxnMetadata.fresh("id", 1L, 1_000, 0L);
    TxnMetadata ongoing = txn.addPartitions(Set.of(TP), 10L);
    assertThat(ongoing.state()).isEqualTo(TransactionState.ONGOING);
    assertThat(ongoing.startTimestampMs()).isEqualTo(10L);
    TxnMetadata more = ongoing.addPartitions(Set.of(new TopicPartition("t", 1)), 20L);
    assertThat(more.startTimestampMs()).isEqualTo(10L);
    assertThat(more.partitions()).hasSize(2);
    TxnMetadata prepared = more.prepareEnd(true, 30L);
    assertThat(prepared.state()).isEqualTo(TransactionState.PREPARE_COMMIT);
    TxnMetadata done = prepared.complete(40L);
    assertThat(done.state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
    assertThat(done.partitions()).isEmpty();
    assertThat(done.bumpEpoch(2_000, 50L).producerEpoch()).isEqualTo((short) 1);
  }

  @Test
  void illegalTransitionsThrow() {
    TxnMetadata empty = TxnMetadata.fresh("id", 1L, 1_000, 0L);
    assertThatThrownBy(() -> empty.prepareEnd(true, 1L)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> empty.complete(1L)).isInstanceOf(IllegalStateException.class);
    TxnMetadata ongoing = empty.addPartitions(Set.of(TP), 1L);
    assertThatThrownBy(() -> ongoing.bumpEpoch(1, 2L)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> ongoing.prepareEnd(false, 2L).addPartitions(Set.of(TP), 3L))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void fencingBumpsTheEpochAndAborts() {
    TxnMetadata ongoing = TxnMetadata.fresh("id", 1L, 1_000, 0L).addPartitions(Set.of(TP), 1L);
    TxnMetadata fenced = ongoing.fenceAndAbort(5L);
    assertThat(fenced.state()).isEqualTo(TransactionState.PREPARE_ABORT);
    assertThat(fenced.producerEpoch()).isEqualTo((short) 1);
    assertThat(fenced.lastProducerEpoch()).isEqualTo((short) 0);
    assertThat(fenced.partitions()).containsExactly(TP);
  }
}
