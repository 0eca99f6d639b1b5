package io.brook.storage.txn;

import static io.brook.storage.txn.TxnRecords.abort;
import static io.brook.storage.txn.TxnRecords.commit;
import static io.brook.storage.txn.TxnRecords.plain;
import static io.brook.storage.txn.TxnRecords.txn;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.segment.SegmentFiles;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The aborted-transaction index through the log's lifecycle, on real segment files. */
class AbortedTxnIndexLogTest {
  @TempDir Path root;

  /** 0-1 txn p1, 2 txn p2, 3 commit p1, 4 abort p2, 5-6 txn p3, 7 abort p3. */
  private static void writeTransactions(PartitionLog log) {
    log.appendAsLeader(txn(1, 0, 2), 0);
    log.appendAsLeader(txn(2, 0, 1), 0);
    log.appendAsCoordinator(commit(1, 0), 0);
    log.appendAsCoordinator(abort(2, 0), 0);
    log.appendAsLeader(txn(3, 0, 2), 0);
    log.appendAsCoordinator(abort(3, 0), 0);
    log.updateHighWatermark(log.logEndOffset());
  }

  private static List<Path> txnIndexFiles(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(SegmentFiles.TXN_INDEX_SUFFIX))
          .toList();
    }
  }

  @Test
  void onlyAbortsAreIndexedAndCollectedByRange() throws Exception {
    LogFixture fixture = new LogFixture(root);
    try (PartitionLog log = fixture.open()) {
      log.appendAsLeader(txn(1, 0, 1), 0);
      log.appendAsCoordinator(commit(1, 0), 0);
      assertThat(txnIndexFiles(fixture.dir())).as("a commit writes no index").isEmpty();

      log.appendAsLeader(txn(2, 0, 1), 0); // 2
      log.appendAsLeader(txn(4, 0, 1), 0); // 3
      log.appendAsCoordinator(abort(2, 0), 0); // 4: LSO then is 3 (p4 still open)
      log.appendAsCoordinator(abort(4, 0), 0); // 5
      log.updateHighWatermark(log.logEndOffset());

      assertThat(txnIndexFiles(fixture.dir())).hasSize(1);
      assertThat(log.collectAbortedTransactions(0, 6))
          .containsExactly(new AbortedTxn(2, 2, 4, 3), new AbortedTxn(4, 3, 5, 6));
      assertThat(log.collectAbortedTransactions(0, 3)).containsExactly(new AbortedTxn(2, 2, 4, 3));
      assertThat(log.collectAbortedTransactions(5, 6)).containsExactly(new AbortedTxn(4, 3, 5, 6));
      assertThat(log.collectAbortedTransactions(0, 2)).isEmpty();
    }
  }

  @Test
  void abortsAreFoundAcrossSegmentsAndSurviveARestart() throws Exception {
    LogFixture fixture = new LogFixture(root);
    try (PartitionLog log = fixture.open()) {
      log.appendAsLeader(txn(1, 0, 2), 0); // 0-1
      log.roll();
      log.appendAsLeader(plain(2), 0); // 2-3
      log.roll();
      log.appendAsCoordinator(abort(1, 0), 0); // 4, in the third segment
      log.updateHighWatermark(log.logEndOffset());
      assertThat(log.collectAbortedTransactions(0, 5)).containsExactly(new AbortedTxn(1, 0, 4, 5));
    }
    try (PartitionLog log = fixture.open(0, 0, 5, true)) {
      assertThat(log.collectAbortedTransactions(0, 5)).containsExactly(new AbortedTxn(1, 0, 4, 5));
      assertThat(log.collectAbortedTransactions(2, 3))
          .as("the transaction started before the fetch and ends after it")
          .containsExactly(new AbortedTxn(1, 0, 4, 5));
      assertThat(log.lastStableOffset()).isEqualTo(5);
    }
  }

  @Test
  void crashRecoveryRebuildsLostEntriesFromTheLog() throws Exception {
    LogFixture fixture = new LogFixture(root);
    try (PartitionLog log = fixture.open()) {
      writeTransactions(log);
      log.flush();
    }
    for (Path file : txnIndexFiles(fixture.dir())) {
      Files.delete(file); // as if the index never reached the disk
    }
    for (Path file : Files.list(fixture.dir()).toList()) {
      if (file.toString().endsWith(".snapshot")) {
        Files.delete(file); // and recovery replays from the log start
      }
    }

    try (PartitionLog log = fixture.openAfterCrash(0)) {
      log.updateHighWatermark(log.logEndOffset());
      assertThat(log.collectAbortedTransactions(0, 8))
          .containsExactly(new AbortedTxn(2, 2, 4, 5), new AbortedTxn(3, 5, 7, 8));
    }
  }

  @Test
  void truncationRemovesEntriesOfCutMarkers() throws Exception {
    try (PartitionLog log = new LogFixture(root).open()) {
      writeTransactions(log);

      log.truncateTo(7);

      assertThat(log.collectAbortedTransactions(0, 7)).containsExactly(new AbortedTxn(2, 2, 4, 5));
      assertThat(log.lastStableOffset()).as("p3 is open again").isEqualTo(5);

      log.truncateFullyAndStartAt(20);
      assertThat(log.collectAbortedTransactions(20, 30)).isEmpty();
    }
  }

  @Test
  void followerBuildsTheSameIndexFromLeaderBatches() throws Exception {
    PartitionLog leader = new LogFixture(root.resolve("leader")).open();
    writeTransactions(leader);
    MemoryRecords fetched =
        leader.read(0, 1 << 20, leader.logEndOffset(), false).slice().copyToMemory();
    LogFixture followerFixture = new LogFixture(root.resolve("follower"));
    PartitionLog follower = followerFixture.open();

    follower.appendAsFollower(fetched);
    follower.updateHighWatermark(follower.logEndOffset());

    assertThat(follower.collectAbortedTransactions(0, 8))
        .isEqualTo(leader.collectAbortedTransactions(0, 8))
        .hasSize(2);
    assertThat(follower.lastStableOffset()).isEqualTo(leader.lastStableOffset());
    LogSegment segment = follower.segments().iterator().next();
    assertThat(segment.txnIndex().entries()).hasSize(2);
    leader.close();
    follower.close();
  }

  @Test
  void deletedSegmentsTakeTheirIndexAlong() throws Exception {
    LogFixture fixture = new LogFixture(root);
    try (PartitionLog log = fixture.open()) {
      writeTransactions(log);
      log.roll();
      log.appendAsLeader(plain(1), 0);
      log.updateHighWatermark(log.logEndOffset());

      log.maybeIncrementLogStartOffset(8);
      log.deletePendingFiles();

      assertThat(log.collectAbortedTransactions(8, 9)).isEmpty();
    }
    try (PartitionLog log = fixture.open(0, 8, 9, true)) {
      assertThat(txnIndexFiles(fixture.dir())).isEmpty();
    }
  }
}
