package io.brook.storage.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.LogFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions V2 (KIP-890 part 2) on a partition's log files: the coordinator bumps the producer
 * epoch when a transaction ends, so a V2 marker must carry an epoch above the transaction's
 * batches, and a batch of the ended transaction that arrives late, with the old epoch, is fenced.
 */
class TransactionV2MarkerTest {
  private static final long PID = 11L;
  private static final short EPOCH = 3;
  private static final short V2 = 2;
  private static final short LEGACY = 0;

  @TempDir Path root;

  @Test
  void aV2MarkerWithTheTransactionsOwnEpochIsRefusedAndWritesNothing() throws Exception {
    try (PartitionLog log = new LogFixture(root).open()) {
      log.appendAsLeader(txn(EPOCH, 0, 2), 0); // 0-1

      assertFenced(() -> log.appendAsCoordinator(commit(EPOCH), 0, V2));

      assertThat(log.logEndOffset()).isEqualTo(2);
      assertThat(log.producerEntry(PID).orElseThrow().currentTxnFirstOffset())
          .as("the transaction is still open")
          .hasValue(0);
      log.appendAsCoordinator(commit((short) (EPOCH + 1)), 0, V2); // 2
      assertThat(log.logEndOffset()).isEqualTo(3);
      assertThat(log.producerEntry(PID).orElseThrow().currentTxnFirstOffset()).isEmpty();
    }
  }

  @Test
  void aLegacyMarkerMayCarryTheTransactionsEpoch() throws Exception {
    try (PartitionLog log = new LogFixture(root).open()) {
      log.appendAsLeader(txn(EPOCH, 0, 2), 0);

      log.appendAsCoordinator(commit(EPOCH), 0, LEGACY);

      assertThat(log.logEndOffset()).isEqualTo(3);
      assertThat(log.producerEntry(PID).orElseThrow().currentTxnFirstOffset()).isEmpty();
    }
  }

  @Test
  void aLateBatchOfTheEndedTransactionIsFencedAndStoresNothingAcrossARestart() throws Exception {
    LogFixture fixture = new LogFixture(root);
    try (PartitionLog log = fixture.open()) {
      log.appendAsLeader(txn(EPOCH, 0, 2), 0); // 0-1
      log.appendAsCoordinator(abort((short) (EPOCH + 1)), 0, V2); // 2

      // The produce request of the ended transaction that was delayed in the network.
      assertFenced(() -> log.appendAsLeader(txn(EPOCH, 2, 1), 0));
      log.updateHighWatermark(log.logEndOffset());
      assertThat(log.lastStableOffset()).as("no transaction reopened").isEqualTo(3);
    }
    // Recovery replays the marker from the segment: the bumped epoch is what the log remembers.
    try (PartitionLog log = fixture.openAfterCrash(0)) {
      assertFenced(() -> log.appendAsLeader(txn(EPOCH, 2, 1), 0));
      assertThat(log.logEndOffset()).isEqualTo(3);

      // The producer's next transaction runs at the bumped epoch from sequence 0.
      log.appendAsLeader(txn((short) (EPOCH + 1), 0, 1), 0); // 3
      assertThat(log.producerEntry(PID).orElseThrow().currentTxnFirstOffset()).hasValue(3);
    }
  }

  @Test
  void aRetriedV2MarkerOfACompletedTransactionIsWrittenAgain() throws Exception {
    try (PartitionLog log = new LogFixture(root).open()) {
      log.appendAsLeader(txn(EPOCH, 0, 1), 0); // 0
      log.appendAsCoordinator(commit((short) (EPOCH + 1)), 0, V2); // 1

      // A coordinator that failed over sends the markers of its prepared transaction again.
      log.appendAsCoordinator(commit((short) (EPOCH + 1)), 0, V2); // 2

      assertThat(log.logEndOffset()).isEqualTo(3);
    }
  }

  @Test
  void aV2MarkerCannotEndTheNextTransactionUnderTheSameEpoch() throws Exception {
    try (PartitionLog log = new LogFixture(root).open()) {
      short bumped = (short) (EPOCH + 1);
      log.appendAsLeader(txn(EPOCH, 0, 1), 0); // 0
      log.appendAsCoordinator(commit(bumped), 0, V2); // 1
      log.appendAsLeader(txn(bumped, 0, 1), 0); // 2: the next transaction

      // A stale copy of the first transaction's marker must not end the second one.
      assertFenced(() -> log.appendAsCoordinator(abort(bumped), 0, V2));

      assertThat(log.logEndOffset()).isEqualTo(3);
      assertThat(log.producerEntry(PID).orElseThrow().currentTxnFirstOffset()).hasValue(2);
    }
  }

  private static void assertFenced(Runnable append) {
    assertThatThrownBy(append::run)
        .isInstanceOf(StorageException.class)
        .extracting(e -> ((StorageException) e).error())
        .isEqualTo(StorageError.INVALID_PRODUCER_EPOCH);
  }

  private static MemoryRecords txn(short epoch, int baseSequence, int count) {
    SimpleRecord[] records = new SimpleRecord[count];
    for (int i = 0; i < count; i++) {
      records[i] = new SimpleRecord(TxnRecords.NOW_MS, ("v" + i).getBytes(StandardCharsets.UTF_8));
    }
    return MemoryRecords.withTransactionalRecords(
        0L, Compression.NONE, PID, epoch, baseSequence, 0, records);
  }

  private static MemoryRecords commit(short epoch) {
    return marker(epoch, ControlRecordType.COMMIT);
  }

  private static MemoryRecords abort(short epoch) {
    return marker(epoch, ControlRecordType.ABORT);
  }

  private static MemoryRecords marker(short epoch, ControlRecordType type) {
    return MemoryRecords.withEndTransactionMarker(
        0L,
        TxnRecords.NOW_MS,
        RecordBatch.NO_PARTITION_LEADER_EPOCH,
        PID,
        epoch,
        new EndTransactionMarker(type, 0));
  }
}
