package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.epoch.EpochEntry;
import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.segment.FileHandlePool;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import io.brook.storage.testing.LogReads;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What loading a partition costs when there is little or nothing to load: a broker opens every one
 * of its tens of thousands of partitions at each start, so per-partition file work is the restart
 * time. Loading an empty partition writes no file, maps no index and creates no file; after an
 * unclean shutdown its preallocated indexes are emptied in place.
 */
class LoadCostTest {
  private static final long INDEX_BYTES = LogConfig.defaults().segmentIndexBytes();

  @TempDir Path root;

  private static Path offsetIndex(LogFixture fixture) {
    return fixture.dir().resolve("00000000000000000000.index");
  }

  private static Path timeIndex(LogFixture fixture) {
    return fixture.dir().resolve("00000000000000000000.timeindex");
  }

  private static Path epochCheckpoint(LogFixture fixture) {
    return fixture.dir().resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
  }

  /** An empty partition that led epoch 0 and was closed cleanly, as a broker leaves it. */
  private static LogFixture emptyPartitionThatLedAnEpoch(Path root) throws Exception {
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    log.leaderEpochCache().assign(0, 0);
    log.close();
    return fixture;
  }

  @Test
  void anEmptyPartitionsEpochAtTheLogEndIsCutInMemoryAndNeverCostsAnFsync() throws Exception {
    // Given
    LogFixture fixture = emptyPartitionThatLedAnEpoch(root);
    byte[] checkpointBefore = Files.readAllBytes(epochCheckpoint(fixture));
    assertThat(new LeaderEpochCache(fixture.dir()).entries()).containsExactly(new EpochEntry(0, 0));

    // When
    PartitionLog log = fixture.open();

    // Then: the entry starting at the log end is gone, and the file was not touched for it
    LeaderEpochCache epochs = log.leaderEpochCache();
    assertThat(epochs.entries()).isEmpty();
    assertThat(Files.readAllBytes(epochCheckpoint(fixture))).isEqualTo(checkpointBefore);
    assertThat(epochs.checkpointSyncCount()).isZero();
    assertThat(epochs.hasUnflushedChanges()).isTrue();

    // When: the log closes
    log.close();

    // Then: the close did not write the cut either, since the next load makes it again
    assertThat(epochs.checkpointSyncCount()).isZero();
    assertThat(Files.readAllBytes(epochCheckpoint(fixture))).isEqualTo(checkpointBefore);
    PartitionLog reopened = fixture.open();
    assertThat(reopened.leaderEpochCache().entries()).isEmpty();
    reopened.close();
  }

  @Test
  void closingAfterALeadershipChangeSyncsTheEpochsOnlyWhenAnEntryBelowTheLogEndChanged()
      throws Exception {
    // Given: an empty partition that became leader of epoch 3, as every leadership move leaves
    // the partitions of a broker that holds no data
    LogFixture empty = new LogFixture(root.resolve("empty"));
    PartitionLog emptyLog = empty.open();
    emptyLog.leaderEpochCache().assign(3, 0);

    // When
    emptyLog.close();

    // Then: no fsync for an entry at the log end; the next load cuts it
    assertThat(emptyLog.leaderEpochCache().checkpointSyncCount()).isZero();
    PartitionLog emptyReopened = empty.open();
    assertThat(emptyReopened.leaderEpochCache().entries()).isEmpty();
    emptyReopened.close();

    // Given: a partition with flushed data of epoch 1, then a new leadership of epoch 2
    LogFixture withData = new LogFixture(root.resolve("data"));
    PartitionLog log = withData.open();
    log.appendAsLeader(Batches.records(3, 1_000L), 1);
    log.flush();
    long syncsAfterFlush = log.leaderEpochCache().checkpointSyncCount();
    log.leaderEpochCache().assign(2, 3);

    // When
    log.close();

    // Then: the entry below the log end was already durable, the one at it needs no fsync
    assertThat(log.leaderEpochCache().checkpointSyncCount()).isEqualTo(syncsAfterFlush);
    PartitionLog reopened = withData.open();
    assertThat(reopened.leaderEpochCache().entries()).containsExactly(new EpochEntry(1, 0));

    // When: it appends in epoch 4 and closes with that data unflushed
    reopened.leaderEpochCache().assign(4, 3);
    reopened.appendAsLeader(Batches.records(2, 2_000L), 4);
    long syncsBeforeClose = reopened.leaderEpochCache().checkpointSyncCount();
    reopened.close();

    // Then: the close flushed the data, and the entry it now covers first
    assertThat(reopened.leaderEpochCache().checkpointSyncCount()).isEqualTo(syncsBeforeClose + 1);
    assertThat(new LeaderEpochCache(withData.dir()).entries())
        .containsExactly(new EpochEntry(1, 0), new EpochEntry(4, 3));
  }

  @Test
  void aCrashBeforeTheCutIsWrittenLeavesItForTheNextLoadToMakeAgain() throws Exception {
    // Given: loaded once, the cut still only in memory, then a crash
    LogFixture fixture = emptyPartitionThatLedAnEpoch(root);
    fixture.open();

    // When
    PartitionLog recovered = fixture.openAfterCrash(0);

    // Then
    assertThat(recovered.leaderEpochCache().entries()).isEmpty();
    recovered.leaderEpochCache().assign(1, 0);
    recovered.close();
    assertThat(new LeaderEpochCache(fixture.dir()).entries()).containsExactly(new EpochEntry(1, 0));
  }

  @Test
  void creatingALogCreatesItsSegmentFilesEmptyAndOpensNoneOfThem() throws Exception {
    // Given: a directory that does not exist yet, under a bounded pool
    LogFixture fixture = new LogFixture(root);
    FileHandlePool pool = new FileHandlePool(4);
    assertThat(fixture.dir()).doesNotExist();

    // When
    PartitionLog log =
        PartitionLog.open(
            fixture.dir(),
            LogConfig.defaults(),
            LogOpenOptions.defaults(LogFixture.TP, fixture.time()).withFiles(pool));

    // Then: the three files exist, empty, and nothing was opened, mapped or read for them
    assertThat(Files.size(fixture.dir().resolve("00000000000000000000.log"))).isZero();
    assertThat(Files.size(offsetIndex(fixture))).isZero();
    assertThat(Files.size(timeIndex(fixture))).isZero();
    assertThat(pool.opens()).isZero();
    assertThat(epochCheckpoint(fixture)).doesNotExist();
    assertThat(log.logEndOffset()).isZero();
    assertThat(log.leaderEpochCache().entries()).isEmpty();

    // And it works as any log: appends map the indexes, a clean close keeps everything
    log.leaderEpochCache().assign(0, 0);
    long now = fixture.time().milliseconds();
    log.appendAsLeader(Batches.idempotent(7L, (short) 0, 0, 3, now), 0);
    assertThat(pool.opens()).isEqualTo(1);
    assertThat(Files.size(offsetIndex(fixture))).isEqualTo(INDEX_BYTES);
    assertThat(log.offsetForTimestamp(now, Long.MAX_VALUE).orElseThrow().offset).isZero();
    log.close();
    assertThat(epochCheckpoint(fixture)).exists();
    PartitionLog reopened = fixture.open();
    assertThat(LogReads.offsets(reopened, 0, 3)).containsExactly(0L, 1L, 2L);
    assertThat(reopened.leaderEpochCache().entries()).containsExactly(new EpochEntry(0, 0));
    assertThat(reopened.producerState().activeProducers()).containsKey(7L);
    reopened.close();
  }

  @Test
  void aCleanLoadOfAnEmptyPartitionMapsNoIndex() throws Exception {
    // Given
    LogFixture fixture = emptyPartitionThatLedAnEpoch(root);
    assertThat(Files.size(offsetIndex(fixture))).isZero();

    // When
    PartitionLog log = fixture.open();

    // Then: not grown to segment.index.bytes, as mapping them writable would have
    assertThat(Files.size(offsetIndex(fixture))).isZero();
    assertThat(Files.size(timeIndex(fixture))).isZero();
    assertThat(log.logEndOffset()).isZero();

    // And the first append maps them as usual
    log.appendAsLeader(Batches.records(3, 1_000L), 1);
    assertThat(Files.size(offsetIndex(fixture))).isGreaterThan(0);
    assertThat(log.offsetForTimestamp(1_000L, Long.MAX_VALUE).orElseThrow().offset).isZero();
    log.close();
  }

  @Test
  void anUncleanLoadEmptiesAnEmptyPartitionsPreallocatedIndexesInPlace() throws Exception {
    // Given: the indexes as an unclean shutdown leaves them, preallocated to segment.index.bytes
    LogFixture fixture = emptyPartitionThatLedAnEpoch(root);
    for (Path index : new Path[] {offsetIndex(fixture), timeIndex(fixture)}) {
      try (RandomAccessFile file = new RandomAccessFile(index.toFile(), "rw")) {
        file.setLength(INDEX_BYTES);
      }
    }
    Object offsetIndexInode = Files.getAttribute(offsetIndex(fixture), "unix:ino");
    Object timeIndexInode = Files.getAttribute(timeIndex(fixture), "unix:ino");

    // When
    PartitionLog log = fixture.openAfterCrash(0);

    // Then: emptied, not mapped, and the same files (no delete and create)
    assertThat(Files.size(offsetIndex(fixture))).isZero();
    assertThat(Files.size(timeIndex(fixture))).isZero();
    assertThat(Files.getAttribute(offsetIndex(fixture), "unix:ino")).isEqualTo(offsetIndexInode);
    assertThat(Files.getAttribute(timeIndex(fixture), "unix:ino")).isEqualTo(timeIndexInode);

    // And appends and reads work from there
    log.appendAsLeader(Batches.records(2, 5L), 1);
    log.appendAsLeader(Batches.records(2, 6L), 1);
    assertThat(LogReads.offsets(log, 0, 4)).containsExactly(0L, 1L, 2L, 3L);
    log.close();
  }

  @Test
  void closingAnEmptyPartitionWritesNoProducerSnapshotButClosingOneWithDataDoes() throws Exception {
    // Given
    LogFixture fixture = emptyPartitionThatLedAnEpoch(root);

    // Then: nothing to replay, nothing to snapshot
    assertThat(snapshots(fixture)).isEmpty();
    PartitionLog log = fixture.open();
    assertThat(log.logEndOffset()).isZero();

    // When: it gets an idempotent producer's batch and closes
    log.appendAsLeader(Batches.idempotent(42L, (short) 0, 0, 3, fixture.time().milliseconds()), 1);
    log.close();

    // Then: the snapshot at the log end keeps the producer for the next load
    assertThat(snapshots(fixture)).containsExactly("00000000000000000003.snapshot");
    PartitionLog reopened = fixture.open();
    assertThat(reopened.producerState().activeProducers()).containsKey(42L);
    reopened.close();
  }

  private static java.util.List<String> snapshots(LogFixture fixture) throws Exception {
    try (java.util.stream.Stream<Path> files = Files.list(fixture.dir())) {
      return files
          .map(file -> file.getFileName().toString())
          .filter(name -> name.endsWith(".snapshot"))
          .sorted()
          .toList();
    }
  }

  @Test
  void recoveryChecksBatchesOfEverySizeUpToTheLargestAndCutsACorruptLargeOne() throws Exception {
    // Given: batches small, larger than the checker's first buffer, and near the batch size limit
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    int[] valueSizes = {100, 100_000, 900_000, 3_000};
    for (int i = 0; i < valueSizes.length; i++) {
      log.appendAsLeader(Batches.sized(1, valueSizes[i], 1L, i), 0);
    }
    byte[] all = LogReads.bytes(log);
    byte[] firstTwo = LogReads.bytes(log, 0, 2);
    log.close();

    // When: recovered from the start
    PartitionLog recovered = fixture.openAfterCrash(0);

    // Then: every batch passed its checksum
    assertThat(recovered.logEndOffset()).isEqualTo(4);
    assertThat(LogReads.bytes(recovered)).isEqualTo(all);
    recovered.close();

    // When: a byte flipped inside the largest batch
    Path segment = fixture.dir().resolve("00000000000000000000.log");
    LogFixture.flipBits(segment, firstTwo.length + 500_000L, 0x01);
    PartitionLog cut = fixture.openAfterCrash(0);

    // Then
    assertThat(cut.logEndOffset()).isEqualTo(2);
    assertThat(LogReads.bytes(cut)).isEqualTo(firstTwo);
    cut.close();
  }
}
