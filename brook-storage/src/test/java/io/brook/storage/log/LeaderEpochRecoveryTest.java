package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.epoch.EpochEndOffset;
import io.brook.storage.epoch.EpochEntry;
import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leader epochs are checkpointed without fsync when assigned and forced by the log's flush; a
 * checkpoint lost to a crash is rebuilt from the batches.
 */
class LeaderEpochRecoveryTest {
  /**
   * Two records per batch, epoch {@code i / 5} for batch {@code i}: a new epoch every 10 offsets.
   */
  private static final int BATCHES = 20;

  @TempDir Path root;

  private static EpochEntry[] expectedEntries() {
    return new EpochEntry[] {
      new EpochEntry(0, 0), new EpochEntry(1, 10), new EpochEntry(2, 20), new EpochEntry(3, 30)
    };
  }

  private static LogFixture fixture(Path root) {
    return new LogFixture(root).config(LogConfig.builder().segmentBytes(3_000).build());
  }

  private static PartitionLog appendAll(PartitionLog log) {
    for (int i = 0; i < BATCHES; i++) {
      log.appendAsLeader(Batches.sized(2, 300, 1000L + i, i), i / 5);
    }
    return log;
  }

  private Path checkpoint(LogFixture fixture) {
    return fixture.dir().resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
  }

  @Test
  void assigningAnEpochDoesNotFsyncButTheFlushDoesBeforeTheRecoveryPointMoves() throws Exception {
    // Given: a log whose segments never roll, so nothing flushes on its own
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    LeaderEpochCache epochs = log.leaderEpochCache();

    // When: three leaderships, one as a broker assigns it on becoming leader (at the log end)
    log.appendAsLeader(Batches.records(2, 1L), 0);
    log.appendAsLeader(Batches.records(2, 1L), 1);
    epochs.assign(2, log.logEndOffset());

    // Then
    assertThat(epochs.checkpointSyncCount()).isZero();
    assertThat(epochs.hasUnflushedChanges()).isTrue();
    assertThat(log.recoveryPoint()).isZero();

    // When
    log.flush();

    // Then: one fsync of the checkpoint covered all three, and the recovery point moved past them
    assertThat(epochs.checkpointSyncCount()).isEqualTo(1);
    assertThat(epochs.hasUnflushedChanges()).isFalse();
    assertThat(log.recoveryPoint()).isEqualTo(4);
  }

  @Test
  void aRollFlushesTheEpochCheckpointWithTheOldSegment() {
    // Given: 3,000-byte segments, flushed on the caller after each roll
    LogFixture fixture = fixture(root);
    PartitionLog log = appendAll(fixture.open());

    // Then: the flushes after the rolls forced the checkpoint
    LeaderEpochCache epochs = log.leaderEpochCache();
    assertThat(log.recoveryPoint()).isPositive();
    assertThat(epochs.checkpointSyncCount()).isPositive();
    assertThat(epochs.entries()).containsExactly(expectedEntries());
  }

  @Test
  void anEmptyCheckpointAfterACleanShutdownIsRebuiltFromTheBatches() throws Exception {
    // Given: an unsynced rename that left an empty file behind
    LogFixture fixture = fixture(root);
    PartitionLog log = appendAll(fixture.open());
    log.close();
    Files.write(checkpoint(fixture), new byte[0]);

    // When
    PartitionLog reopened = fixture.open(log.recoveryPoint(), 0, 0, true);

    // Then
    assertThat(reopened.leaderEpochCache().entries()).containsExactly(expectedEntries());
    assertThat(reopened.endOffsetForEpoch(1)).isEqualTo(new EpochEndOffset(1, 20));
    assertThat(reopened.endOffsetForEpoch(3)).isEqualTo(new EpochEndOffset(3, 40));
    assertThat(new LeaderEpochCache(fixture.dir()).entries()).containsExactly(expectedEntries());
  }

  @Test
  void anEmptyCheckpointAfterACrashIsRebuiltBelowAndRecoveredAboveTheRecoveryPoint()
      throws Exception {
    // Given: a crash with the recovery point in the middle of the log
    LogFixture fixture = fixture(root);
    PartitionLog log = appendAll(fixture.open());
    log.close();
    Files.write(checkpoint(fixture), new byte[0]);

    // When
    PartitionLog recovered = fixture.openAfterCrash(24);

    // Then
    assertThat(recovered.logEndOffset()).isEqualTo(40);
    assertThat(recovered.leaderEpochCache().entries()).containsExactly(expectedEntries());
    assertThat(recovered.endOffsetForEpoch(0)).isEqualTo(new EpochEndOffset(0, 10));

    // And the rebuilt checkpoint is written by the log's next flush, not at load
    assertThat(recovered.leaderEpochCache().hasUnflushedChanges()).isTrue();
    recovered.flush();
    assertThat(recovered.leaderEpochCache().hasUnflushedChanges()).isFalse();
    assertThat(new LeaderEpochCache(fixture.dir()).entries()).containsExactly(expectedEntries());
  }

  @Test
  void aMissingOrGarbledCheckpointIsRebuiltToo() throws Exception {
    // Given
    LogFixture fixture = fixture(root);
    PartitionLog log = appendAll(fixture.open());
    log.close();
    Files.delete(checkpoint(fixture));

    // When / Then
    PartitionLog reopened = fixture.open(log.recoveryPoint(), 0, 0, true);
    assertThat(reopened.leaderEpochCache().entries()).containsExactly(expectedEntries());
    reopened.close();

    Files.writeString(checkpoint(fixture), "0\n4\n0 0\n1 1");
    PartitionLog again = fixture.openAfterCrash(0);
    assertThat(again.leaderEpochCache().entries()).containsExactly(expectedEntries());
  }
}
