package io.brook.storage.txn;

import static io.brook.storage.txn.TxnRecords.abort;
import static io.brook.storage.txn.TxnRecords.commit;
import static io.brook.storage.txn.TxnRecords.plain;
import static io.brook.storage.txn.TxnRecords.txn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.log.LogOffsetMetadata;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LastStableOffsetTest {
  @TempDir Path root;

  @Test
  void interleavedTransactionsHoldTheLsoAtTheOldestOpenOne() throws Exception {
    LogFixture fixture = new LogFixture(root);
    try (PartitionLog log = fixture.open()) {
      // Given
      log.appendAsLeader(plain(2), 0); // 0-1
      log.appendAsLeader(txn(1, 0, 2), 0); // 2-3  producer 1
      log.appendAsLeader(txn(2, 0, 1), 0); // 4    producer 2
      log.appendAsLeader(txn(1, 2, 1), 0); // 5    producer 1
      log.updateHighWatermark(log.logEndOffset());

      // Then
      assertThat(log.lastStableOffset()).isEqualTo(2);

      // When: producer 1 commits, producer 2 is still open
      log.appendAsCoordinator(commit(1, 0), 0); // 6
      log.updateHighWatermark(log.logEndOffset());

      // Then
      assertThat(log.lastStableOffset()).isEqualTo(4);

      // When: producer 2 aborts
      log.appendAsCoordinator(abort(2, 0), 0); // 7
      assertThat(log.lastStableOffset())
          .as("the marker is not below the high watermark yet")
          .isEqualTo(4);
      log.updateHighWatermark(log.logEndOffset());

      // Then
      assertThat(log.lastStableOffset()).isEqualTo(8);
      assertThat(log.producerState().firstUnstableOffset()).isEmpty();
    }
  }

  @Test
  void lsoNeverPassesTheHighWatermark() throws Exception {
    try (PartitionLog log = new LogFixture(root).open()) {
      log.appendAsLeader(plain(3), 0);
      log.updateHighWatermark(2);
      log.appendAsLeader(txn(7, 0, 1), 0);

      assertThat(log.lastStableOffset()).isEqualTo(2);
      assertThat(log.lastStableOffsetMetadata().messageOffset()).isEqualTo(2);
    }
  }

  @Test
  void markerFromAnOlderCoordinatorEpochIsFenced() throws Exception {
    try (PartitionLog log = new LogFixture(root).open()) {
      log.appendAsLeader(txn(1, 0, 1), 0);
      log.appendAsCoordinator(commit(1, 5), 0);
      log.appendAsLeader(txn(1, 1, 1), 0);

      assertThatThrownBy(() -> log.appendAsCoordinator(abort(1, 4), 0))
          .isInstanceOf(StorageException.class)
          .extracting(e -> ((StorageException) e).error())
          .isEqualTo(StorageError.TRANSACTION_COORDINATOR_FENCED);
      log.appendAsCoordinator(abort(1, 5), 0);
      log.updateHighWatermark(log.logEndOffset());
      assertThat(log.lastStableOffset()).isEqualTo(log.logEndOffset());
    }
  }

  @Test
  void nonTransactionalWriteInsideAnOpenTransactionIsRefused() throws Exception {
    try (PartitionLog log = new LogFixture(root).open()) {
      log.appendAsLeader(txn(1, 0, 1), 0);

      assertThatThrownBy(() -> log.appendAsLeader(TxnRecords.idempotent(1, 1, 1), 0))
          .isInstanceOf(StorageException.class)
          .extracting(e -> ((StorageException) e).error())
          .isEqualTo(StorageError.INVALID_TXN_STATE);
      log.appendAsCoordinator(commit(1, 0), 0);
      log.appendAsLeader(TxnRecords.idempotent(1, 1, 1), 0);
      assertThat(log.logEndOffset()).isEqualTo(3);
    }
  }

  @Test
  void openTransactionSurvivesRestartAndReplay() throws Exception {
    LogFixture fixture = new LogFixture(root);
    try (PartitionLog log = fixture.open()) {
      log.appendAsLeader(plain(1), 0); // 0
      log.appendAsLeader(txn(1, 0, 1), 0); // 1
      log.roll(); // snapshot at 2 holds the open transaction
      log.appendAsLeader(txn(2, 0, 1), 0); // 2
      log.appendAsCoordinator(commit(2, 0), 0); // 3
      log.flush();
    }
    // Clean reopen (snapshot at the log end)
    try (PartitionLog log = fixture.open(0, 0, 4, true)) {
      assertThat(log.lastStableOffset()).isEqualTo(1);
    }
    // Crash: replay from the snapshot at 2
    try (PartitionLog log = fixture.openAfterCrash(0)) {
      log.updateHighWatermark(4);
      assertThat(log.lastStableOffset()).isEqualTo(1);
      log.appendAsCoordinator(commit(1, 0), 0);
      log.updateHighWatermark(log.logEndOffset());
      assertThat(log.lastStableOffset()).isEqualTo(5);
    }
  }

  @Test
  void truncationReopensATransactionWhoseMarkerIsCut() throws Exception {
    try (PartitionLog log = new LogFixture(root).open()) {
      log.appendAsLeader(txn(1, 0, 2), 0); // 0-1
      log.appendAsCoordinator(commit(1, 0), 0); // 2
      log.updateHighWatermark(3);
      assertThat(log.lastStableOffset()).isEqualTo(3);

      log.truncateTo(2);

      assertThat(log.lastStableOffset()).isEqualTo(0);
      LogOffsetMetadata at = log.lastStableOffsetMetadata();
      assertThat(at.messageOffset()).isZero();
      assertThat(at.relativePositionInSegment()).isZero();

      // When: the tail is written again differently, the cached position follows
      log.truncateTo(0);
      log.appendAsLeader(plain(3), 0); // 0-2
      log.appendAsLeader(txn(2, 0, 1), 0); // 3
      log.updateHighWatermark(log.logEndOffset());
      assertThat(log.lastStableOffsetMetadata().messageOffset()).isEqualTo(3);
      assertThat(log.lastStableOffsetMetadata().relativePositionInSegment()).isPositive();
      assertThat(log.lastStableOffsetMetadata()).isSameAs(log.lastStableOffsetMetadata());
    }
  }
}
