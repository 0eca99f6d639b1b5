package io.brook.storage.epoch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.checkpoint.CorruptCheckpointException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaderEpochCacheTest {
  @TempDir Path dir;

  private LeaderEpochCache cacheWith(int... epochAndOffsetPairs) throws IOException {
    LeaderEpochCache cache = new LeaderEpochCache(dir);
    for (int i = 0; i < epochAndOffsetPairs.length; i += 2) {
      cache.assign(epochAndOffsetPairs[i], epochAndOffsetPairs[i + 1]);
    }
    return cache;
  }

  private static EpochEntry entry(int epoch, long startOffset) {
    return new EpochEntry(epoch, startOffset);
  }

  @Test
  void startsEmptyWithoutACheckpoint() throws IOException {
    // Given / When
    LeaderEpochCache cache = new LeaderEpochCache(dir);

    // Then
    assertThat(cache.entries()).isEmpty();
    assertThat(cache.latestEpoch()).isEmpty();
    assertThat(cache.latestEntry()).isEmpty();
    assertThat(cache.earliestEntry()).isEmpty();
    assertThat(cache.epochForOffset(0)).isEmpty();
  }

  @Test
  void assignsIncreasingEpochs() throws IOException {
    // Given
    LeaderEpochCache cache = new LeaderEpochCache(dir);

    // When
    cache.assign(0, 0);
    cache.assign(2, 10);
    cache.assign(5, 25);

    // Then
    assertThat(cache.entries()).containsExactly(entry(0, 0), entry(2, 10), entry(5, 25));
    assertThat(cache.latestEpoch()).hasValue(5);
    assertThat(cache.latestEntry()).contains(entry(5, 25));
    assertThat(cache.earliestEntry()).contains(entry(0, 0));
  }

  @Test
  void sameEpochAgainIsANoOpWhateverTheOffset() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10);
    long modified = Files.getLastModifiedTime(cache.checkpointFile()).toMillis();

    // When
    cache.assign(1, 10);
    cache.assign(1, 15);
    cache.assign(1, 5);

    // Then
    assertThat(cache.entries()).containsExactly(entry(1, 10));
    assertThat(Files.getLastModifiedTime(cache.checkpointFile()).toMillis()).isEqualTo(modified);
  }

  @Test
  void olderEpochIsANoOp() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20);

    // When
    cache.assign(2, 30);
    cache.assign(0, 0);

    // Then
    assertThat(cache.entries()).containsExactly(entry(1, 10), entry(3, 20));
  }

  @Test
  void undefinedEpochIsIgnored() throws IOException {
    // Given
    LeaderEpochCache cache = new LeaderEpochCache(dir);

    // When
    cache.assign(-1, 0);

    // Then
    assertThat(cache.entries()).isEmpty();
    assertThat(cache.checkpointFile()).doesNotExist();
  }

  @Test
  void newEpochRemovesEntriesStartingAtOrAfterItsOffset() throws IOException {
    // Given: the log was truncated to 15 without the cache being told.
    LeaderEpochCache cache = cacheWith(1, 0, 2, 10, 3, 15, 4, 20);

    // When
    cache.assign(6, 15);

    // Then
    assertThat(cache.entries()).containsExactly(entry(1, 0), entry(2, 10), entry(6, 15));
    assertThat(new LeaderEpochCache(dir).entries()).isEqualTo(cache.entries());
  }

  @Test
  void rejectsANegativeStartOffset() {
    // Given / When / Then
    assertThatThrownBy(() -> new LeaderEpochCache(dir).assign(1, -5))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void epochForOffsetFindsTheContainingRange() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20, 4, 30);

    // When / Then
    assertThat(cache.epochForOffset(9)).isEmpty();
    assertThat(cache.epochForOffset(10)).hasValue(1);
    assertThat(cache.epochForOffset(19)).hasValue(1);
    assertThat(cache.epochForOffset(20)).hasValue(3);
    assertThat(cache.epochForOffset(29)).hasValue(3);
    assertThat(cache.epochForOffset(30)).hasValue(4);
    assertThat(cache.epochForOffset(1_000)).hasValue(4);
  }

  @Test
  void endOffsetForUndefinedEpochIsUndefined() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20);

    // When / Then
    assertThat(cache.endOffsetFor(-1, 100)).isEqualTo(EpochEndOffset.UNDEFINED);
  }

  @Test
  void endOffsetForAnyEpochOfAnEmptyCacheIsUndefined() throws IOException {
    // Given
    LeaderEpochCache cache = new LeaderEpochCache(dir);

    // When / Then
    assertThat(cache.endOffsetFor(0, 100)).isEqualTo(EpochEndOffset.UNDEFINED);
    assertThat(cache.endOffsetFor(7, 100)).isEqualTo(EpochEndOffset.UNDEFINED);
  }

  @Test
  void endOffsetForTheLatestEpochIsTheLogEndOffset() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20);

    // When / Then
    assertThat(cache.endOffsetFor(3, 100)).isEqualTo(new EpochEndOffset(3, 100));
  }

  @Test
  void endOffsetForAnEpochAboveTheLatestIsUndefined() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20);

    // When / Then
    assertThat(cache.endOffsetFor(4, 100)).isEqualTo(EpochEndOffset.UNDEFINED);
  }

  @Test
  void endOffsetForAKnownOlderEpochIsTheNextEpochsStart() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20, 4, 30);

    // When / Then
    assertThat(cache.endOffsetFor(1, 100)).isEqualTo(new EpochEndOffset(1, 20));
    assertThat(cache.endOffsetFor(3, 100)).isEqualTo(new EpochEndOffset(3, 30));
  }

  @Test
  void endOffsetForAnUnknownEpochInAGapAnswersWithTheFloorEpoch() throws IOException {
    // Given: epoch 2 never wrote anything here.
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20, 4, 30);

    // When / Then
    assertThat(cache.endOffsetFor(2, 100)).isEqualTo(new EpochEndOffset(1, 20));
  }

  @Test
  void endOffsetForAnEpochBelowTheFirstIsTheFirstStartOffset() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(2, 10, 3, 20);

    // When / Then
    assertThat(cache.endOffsetFor(0, 100)).isEqualTo(new EpochEndOffset(0, 10));
    assertThat(cache.endOffsetFor(1, 100)).isEqualTo(new EpochEndOffset(1, 10));
  }

  @Test
  void truncateFromEndDropsEntriesAtOrAfterTheEnd() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20, 4, 30);

    // When
    cache.truncateFromEnd(20);

    // Then
    assertThat(cache.entries()).containsExactly(entry(1, 10));
    assertThat(new LeaderEpochCache(dir).entries()).containsExactly(entry(1, 10));
  }

  @Test
  void truncateFromEndBeyondTheLastEntryChangesNothing() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20);

    // When
    cache.truncateFromEnd(21);

    // Then
    assertThat(cache.entries()).containsExactly(entry(1, 10), entry(3, 20));
  }

  @Test
  void truncateFromStartRebasesTheEntryContainingTheNewStart() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20, 4, 30);

    // When
    cache.truncateFromStart(25);

    // Then
    assertThat(cache.entries()).containsExactly(entry(3, 25), entry(4, 30));
    assertThat(new LeaderEpochCache(dir).entries()).containsExactly(entry(3, 25), entry(4, 30));
  }

  @Test
  void truncateFromStartAtAnEntryBoundaryDropsOnlyOlderEntries() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20, 4, 30);

    // When
    cache.truncateFromStart(30);

    // Then
    assertThat(cache.entries()).containsExactly(entry(4, 30));
  }

  @Test
  void truncateFromStartBelowTheFirstEntryChangesNothing() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20);

    // When
    cache.truncateFromStart(5);
    cache.truncateFromStart(10);

    // Then
    assertThat(cache.entries()).containsExactly(entry(1, 10), entry(3, 20));
  }

  @Test
  void truncateFromStartBeyondTheLastEntryKeepsOnlyItRebased() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20);

    // When
    cache.truncateFromStart(500);

    // Then
    assertThat(cache.entries()).containsExactly(entry(3, 500));
    assertThat(cache.epochForOffset(500)).isEqualTo(OptionalInt.of(3));
  }

  @Test
  void clearDropsEverythingAndPersists() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 10, 3, 20);

    // When
    cache.clear();

    // Then
    assertThat(cache.entries()).isEmpty();
    assertThat(new LeaderEpochCache(dir).entries()).isEmpty();
  }

  @Test
  void persistsAcrossReopen() throws IOException {
    // Given
    cacheWith(0, 0, 2, 100, 7, 1000);

    // When
    LeaderEpochCache reopened = new LeaderEpochCache(dir);

    // Then
    assertThat(reopened.entries()).containsExactly(entry(0, 0), entry(2, 100), entry(7, 1000));
    assertThat(Files.readString(dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME)))
        .isEqualTo("0\n3\n0 0\n2 100\n7 1000\n");
  }

  @Test
  void persistsLongOffsets() throws IOException {
    // Given
    LeaderEpochCache cache = new LeaderEpochCache(dir);
    cache.assign(9, 5_000_000_000L);

    // When
    LeaderEpochCache reopened = new LeaderEpochCache(dir);

    // Then
    assertThat(reopened.entries()).containsExactly(entry(9, 5_000_000_000L));
  }

  @Test
  void failsToLoadACorruptCheckpoint() throws IOException {
    // Given
    Path file = dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);

    // When / Then
    Files.writeString(file, "0\n2\n1 10\n");
    assertThatThrownBy(() -> new LeaderEpochCache(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("header says 2 entries but the file has 1");
    Files.writeString(file, "1\n1\n1 10\n");
    assertThatThrownBy(() -> new LeaderEpochCache(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("expected version 0 but found 1");
    Files.writeString(file, "0\n1\n1,10\n");
    assertThatThrownBy(() -> new LeaderEpochCache(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("malformed entry on line 3");
    Files.writeString(file, "0\n1\n-3 10\n");
    assertThatThrownBy(() -> new LeaderEpochCache(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("epoch must be >= 0");
  }

  @Test
  void failsToLoadACheckpointThatIsNotStrictlyIncreasing() throws IOException {
    // Given
    Path file = dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);

    // When / Then
    Files.writeString(file, "0\n2\n3 10\n2 20\n");
    assertThatThrownBy(() -> new LeaderEpochCache(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("not strictly increasing at line 4");
    Files.writeString(file, "0\n2\n2 20\n3 20\n");
    assertThatThrownBy(() -> new LeaderEpochCache(dir))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("not strictly increasing");
  }

  @Test
  void assignReplacesTheCheckpointWithoutFsyncAndFlushSyncsItOnce() throws IOException {
    // Given
    LeaderEpochCache cache = new LeaderEpochCache(dir);

    // When
    cache.assign(1, 0);
    cache.assign(2, 10);

    // Then: the file already holds both entries, nothing was fsynced
    assertThat(new LeaderEpochCache(dir).entries()).containsExactly(entry(1, 0), entry(2, 10));
    assertThat(cache.checkpointSyncCount()).isZero();
    assertThat(cache.hasUnflushedChanges()).isTrue();

    // When
    cache.flush();
    cache.flush();

    // Then
    assertThat(cache.checkpointSyncCount()).isEqualTo(1);
    assertThat(cache.hasUnflushedChanges()).isFalse();
  }

  @Test
  void truncationsAreDurableAtOnce() throws IOException {
    // Given
    LeaderEpochCache cache = cacheWith(1, 0, 2, 10, 3, 20);

    // When / Then: each truncation fsyncs before it returns, which also covers earlier assigns
    cache.truncateFromEnd(15);
    assertThat(cache.checkpointSyncCount()).isEqualTo(1);
    assertThat(cache.hasUnflushedChanges()).isFalse();
    cache.truncateFromStart(5);
    assertThat(cache.checkpointSyncCount()).isEqualTo(2);
    cache.clear();
    assertThat(cache.checkpointSyncCount()).isEqualTo(3);
    assertThat(new LeaderEpochCache(dir).entries()).isEmpty();
  }

  @Test
  void loadOrRebuildAcceptsAnEmptyCheckpointAndAsksForARebuild() throws IOException {
    // Given: what an unsynced rename can leave after a power loss
    Files.write(dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME), new byte[0]);

    // When
    LeaderEpochCache cache = LeaderEpochCache.loadOrRebuild(dir);

    // Then
    assertThat(cache.entries()).isEmpty();
    assertThat(cache.needsRebuild()).isTrue();

    // When
    cache.assign(4, 7);
    cache.persistRebuilt();

    // Then: not yet durable (the assign wrote the file without fsync); the flush forces it
    assertThat(cache.needsRebuild()).isFalse();
    assertThat(cache.hasUnflushedChanges()).isTrue();

    // When
    cache.flush();

    // Then
    assertThat(cache.hasUnflushedChanges()).isFalse();
    assertThat(LeaderEpochCache.loadOrRebuild(dir).needsRebuild()).isFalse();
    assertThat(new LeaderEpochCache(dir).entries()).containsExactly(entry(4, 7));
  }

  @Test
  void aRebuildWithNoEntriesWritesNothingUntilTheFlush() throws IOException {
    // Given: a follower's partition that never had a checkpoint
    LeaderEpochCache cache = LeaderEpochCache.loadOrRebuild(dir);

    // When
    cache.persistRebuilt();

    // Then
    assertThat(Files.exists(dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME))).isFalse();
    assertThat(cache.checkpointSyncCount()).isZero();
    cache.flush();
    assertThat(new LeaderEpochCache(dir).entries()).isEmpty();
    assertThat(cache.checkpointSyncCount()).isEqualTo(1);
  }

  @Test
  void loadOrRebuildAsksForARebuildWhenTheCheckpointIsMissingOrCorrupt() throws IOException {
    assertThat(LeaderEpochCache.loadOrRebuild(dir).needsRebuild()).isTrue();
    Files.writeString(dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME), "0\n2\n3 5\n1 9\n");
    LeaderEpochCache corrupt = LeaderEpochCache.loadOrRebuild(dir);
    assertThat(corrupt.needsRebuild()).isTrue();
    assertThat(corrupt.entries()).isEmpty();
  }
}
