package io.brook.storage.producer;

import static io.brook.storage.producer.TestBatches.idempotent;
import static io.brook.storage.producer.TestBatches.marker;
import static io.brook.storage.producer.TestBatches.transactional;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.testing.ManualTime;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Open transactions through snapshots: what a restart or a new leader rebuilds the LSO from. */
class ProducerStateTxnTest {
  @TempDir Path dir;

  private final ManualTime time = new ManualTime();

  @Test
  void aSnapshotKeepsTheOpenTransactionAndTheCoordinatorEpoch() throws Exception {
    // Given: producer 1 committed once (coordinator epoch 4) and has a transaction open at 3
    ProducerStateManager state = new ProducerStateManager(dir, time, Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();
    log.appendFromClient(transactional(1L, (short) 0, 0, 2, now)); // 0-1
    log.replicate(marker(1L, (short) 0, ControlRecordType.COMMIT, 4, now)); // 2
    log.appendFromClient(transactional(1L, (short) 0, 2, 1, now)); // 3
    log.appendFromClient(idempotent(2L, (short) 0, 0, 1, now)); // 4
    state.takeSnapshot();

    // When
    ProducerStateManager reopened = new ProducerStateManager(dir, time, Long.MAX_VALUE);
    reopened.truncateAndReload(0, 5);

    // Then
    assertThat(reopened.firstUnstableOffset()).isEqualTo(OptionalLong.of(3));
    ProducerStateEntry entry = reopened.lastEntry(1L).orElseThrow();
    assertThat(entry.currentTxnFirstOffset()).isEqualTo(OptionalLong.of(3));
    assertThat(entry.coordinatorEpoch()).isEqualTo(4);
    assertThat(reopened.lastEntry(2L).orElseThrow().currentTxnFirstOffset()).isEmpty();
  }

  @Test
  void completedTransactionsCarryTheLastStableOffsetAfterTheirMarker() throws Exception {
    ProducerStateManager state = new ProducerStateManager(dir, time, Long.MAX_VALUE);
    FakeLog log = new FakeLog(state);
    long now = time.milliseconds();
    log.appendFromClient(transactional(1L, (short) 0, 0, 1, now)); // 0
    log.appendFromClient(transactional(2L, (short) 0, 0, 1, now)); // 1

    // When: both markers in one append, producer 2's first
    ProducerStateManager.Append append = state.beginAppend(false);
    var abort2 = TestBatches.at(marker(2L, (short) 0, ControlRecordType.ABORT, 0, now), 2);
    var abort1 = TestBatches.at(marker(1L, (short) 0, ControlRecordType.ABORT, 0, now), 3);
    append.record(abort2);
    append.record(abort1);
    append.commit();

    // Then: after 2's marker producer 1 was still open (LSO 0); after 1's, nothing was (LSO 4)
    assertThat(append.completedTransactions())
        .extracting(
            t ->
                t.producerId()
                    + "@"
                    + t.firstOffset()
                    + "-"
                    + t.lastOffset()
                    + ":"
                    + t.lastStableOffset())
        .containsExactly("2@1-2:0", "1@0-3:4");
    assertThat(state.firstUnstableOffset()).as("markers not yet replicated").hasValue(0);
    state.onHighWatermarkUpdated(4);
    assertThat(state.firstUnstableOffset()).isEmpty();
  }
}
