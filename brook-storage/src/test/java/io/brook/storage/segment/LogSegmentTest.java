package io.brook.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.index.TimestampOffset;
import io.brook.storage.log.LogConfig;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.ManualTime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogSegmentTest {
  private static final long BASE = 100;

  @TempDir Path dir;

  private final ManualTime time = new ManualTime();

  /** Appends {@code count} one-record batches of ~1 KB with timestamps 1000, 1010, ... */
  private static List<Integer> fill(LogSegment segment, int count) throws Exception {
    List<Integer> positions = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      MemoryRecords batch = Batches.sized(1, 1000, 1000 + 10L * i, i);
      for (MutableRecordBatch b : batch.batches()) {
        b.setLastOffset(BASE + i);
      }
      positions.add(segment.sizeInBytes());
      segment.append(batch);
    }
    return positions;
  }

  @Test
  void indexesOneEntryPerIntervalAndFindsEveryOffset() throws Exception {
    // Given
    LogConfig config = LogConfig.builder().indexIntervalBytes(2_500).build();
    LogSegment segment = LogSegment.create(dir, BASE, config, time);

    // When
    List<Integer> positions = fill(segment, 20);

    // Then: ~1 KB batches, an entry every third batch
    assertThat(offsetIndexOf(segment).entries()).isBetween(5, 7);
    for (int i = 0; i < 20; i++) {
      FileRecords.LogOffsetPosition found = segment.translateOffset(BASE + i, 0);
      assertThat(found.position).isEqualTo(positions.get(i));
    }
    assertThat(segment.translateOffset(BASE + 20, 0)).isNull();
    assertThat(segment.readNextOffset()).isEqualTo(BASE + 20);
    assertThat(segment.maxTimestampSoFar()).isEqualTo(new TimestampOffset(1190, BASE + 19));
  }

  @Test
  void creatingASegmentOverStaleFilesOfTheSameBaseOffsetStartsItEmpty() throws Exception {
    // Given: a written segment's files left behind
    LogSegment stale = LogSegment.create(dir, BASE, LogConfig.defaults(), time);
    fill(stale, 5);
    stale.close();
    assertThat(java.nio.file.Files.size(SegmentFiles.logFile(dir, BASE))).isGreaterThan(0);

    // When
    LogSegment fresh = LogSegment.create(dir, BASE, LogConfig.defaults(), time);

    // Then: empty files, no entry of the old ones
    assertThat(java.nio.file.Files.size(SegmentFiles.logFile(dir, BASE))).isZero();
    assertThat(java.nio.file.Files.size(SegmentFiles.offsetIndexFile(dir, BASE))).isZero();
    assertThat(java.nio.file.Files.size(SegmentFiles.timeIndexFile(dir, BASE))).isZero();
    assertThat(fresh.sizeInBytes()).isZero();
    assertThat(fresh.readNextOffset()).isEqualTo(BASE);
    assertThat(offsetIndexOf(fresh).entries()).isZero();
    fresh.close();
  }

  @Test
  void readStopsAtTheGivenPosition() throws Exception {
    // Given
    LogSegment segment = LogSegment.create(dir, BASE, LogConfig.defaults(), time);
    List<Integer> positions = fill(segment, 5);

    // When
    FileSlice slice = segment.read(BASE + 1, 1 << 20, positions.get(3), false);

    // Then
    assertThat(slice.position()).isEqualTo(positions.get(1));
    assertThat(slice.sizeInBytes()).isEqualTo(positions.get(3) - positions.get(1));
    assertThat(Batches.offsets(slice.copyToMemory())).containsExactly(BASE + 1, BASE + 2);
  }

  @Test
  void truncationRemovesWholeBatchesAndTheirIndexEntries() throws Exception {
    // Given
    LogConfig config = LogConfig.builder().indexIntervalBytes(1).build();
    LogSegment segment = LogSegment.create(dir, BASE, config, time);
    List<Integer> positions = fill(segment, 10);

    // When
    int removed = segment.truncateTo(BASE + 6);

    // Then
    assertThat(segment.sizeInBytes()).isEqualTo(positions.get(6));
    assertThat(removed).isPositive();
    assertThat(segment.readNextOffset()).isEqualTo(BASE + 6);
    assertThat(offsetIndexOf(segment).lastEntry().offset()).isLessThan(BASE + 6);
    assertThat(segment.maxTimestampSoFar()).isEqualTo(new TimestampOffset(1050, BASE + 5));
  }

  @Test
  void recoveryRebuildsIndexesAndStopsAtGarbage() throws Exception {
    // Given: a segment whose file ends in zeros, as after a crash with preallocation
    LogConfig config = LogConfig.builder().indexIntervalBytes(1).build();
    LogSegment segment = LogSegment.create(dir, BASE, config, time);
    fill(segment, 8);
    int validSize = segment.sizeInBytes();
    try (PinnedSegment pinned = segment.pin()) {
      pinned.records().append(MemoryRecords.readableRecords(java.nio.ByteBuffer.allocate(500)));
    }
    List<Long> seen = new ArrayList<>();

    // When
    int truncated = segment.recover(batch -> seen.add(batch.baseOffset()));

    // Then
    assertThat(truncated).isEqualTo(500);
    assertThat(segment.sizeInBytes()).isEqualTo(validSize);
    assertThat(seen).hasSize(8).startsWith(BASE).endsWith(BASE + 7);
    assertThat(offsetIndexOf(segment).entries()).isEqualTo(7);
  }

  @Test
  void recoveryFromTheRecoveryPointValidatesOnlyTheBatchesFromTheLastIndexedOneBelowIt()
      throws Exception {
    // Given: 20 batches, an index entry every other batch, the first 15 flushed; the segment is
    // reopened without a close, so its index files are still preallocated (as after a SIGKILL)
    LogConfig config = LogConfig.builder().indexIntervalBytes(1_500).build();
    LogSegment written = LogSegment.create(dir, BASE, config, time);
    List<Integer> positions = fill(written, 20);
    written.flush();
    LogSegment segment = LogSegment.open(dir, BASE, config, time, true);
    List<Long> seen = new ArrayList<>();

    // When
    int truncated = segment.recoverFrom(BASE + 15, batch -> seen.add(batch.baseOffset()));

    // Then: validation started at the indexed batch at or below offset 14, not at the start
    assertThat(truncated).isZero();
    assertThat(seen).isNotEmpty().endsWith(BASE + 19);
    assertThat(seen.get(0)).isBetween(BASE + 12, BASE + 14);
    assertThat(segment.sizeInBytes()).isEqualTo(written.sizeInBytes());
    assertThat(segment.readNextOffset()).isEqualTo(BASE + 20);
    assertThat(segment.maxTimestampSoFar()).isEqualTo(new TimestampOffset(1190, BASE + 19));
    for (int i = 0; i < 20; i++) {
      assertThat(segment.translateOffset(BASE + i, 0).position).isEqualTo(positions.get(i));
    }
    assertThat(offsetIndexOf(segment).entries()).isBetween(8, 10);
  }

  @Test
  void recoveryFromTheRecoveryPointStillCutsATornTail() throws Exception {
    // Given: the first 6 batches flushed, then 4 more and a torn one
    LogConfig config = LogConfig.builder().indexIntervalBytes(1).build();
    LogSegment written = LogSegment.create(dir, BASE, config, time);
    fill(written, 10);
    int validSize = written.sizeInBytes();
    try (PinnedSegment pinned = written.pin()) {
      pinned.records().append(MemoryRecords.readableRecords(java.nio.ByteBuffer.allocate(500)));
    }
    written.flush();
    LogSegment segment = LogSegment.open(dir, BASE, config, time, true);
    List<Long> seen = new ArrayList<>();

    // When
    int truncated = segment.recoverFrom(BASE + 6, batch -> seen.add(batch.baseOffset()));

    // Then
    assertThat(truncated).isEqualTo(500);
    assertThat(segment.sizeInBytes()).isEqualTo(validSize);
    assertThat(seen).containsExactly(BASE + 5, BASE + 6, BASE + 7, BASE + 8, BASE + 9);
    assertThat(segment.readNextOffset()).isEqualTo(BASE + 10);
  }

  @Test
  void recoveryFromTheRecoveryPointFallsBackToTheWholeSegmentWhenTheIndexIsGarbage()
      throws Exception {
    // Given: an offset index whose first slot names an offset that is not a batch's last one
    LogConfig config = LogConfig.builder().indexIntervalBytes(1).build();
    LogSegment written = LogSegment.create(dir, BASE, config, time);
    fill(written, 6);
    written.flush();
    try (java.nio.channels.FileChannel index =
        java.nio.channels.FileChannel.open(
            SegmentFiles.offsetIndexFile(dir, BASE), java.nio.file.StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer entry = java.nio.ByteBuffer.allocate(8).putInt(3).putInt(1);
      index.write(entry.flip(), 0);
    }
    LogSegment segment = LogSegment.open(dir, BASE, config, time, true);
    List<Long> seen = new ArrayList<>();

    // When
    segment.recoverFrom(BASE + 5, batch -> seen.add(batch.baseOffset()));

    // Then
    assertThat(seen).hasSize(6).startsWith(BASE);
    assertThat(segment.readNextOffset()).isEqualTo(BASE + 6);
  }

  @Test
  void findsRecordsByTimestamp() throws Exception {
    // Given
    LogConfig config = LogConfig.builder().indexIntervalBytes(1).build();
    LogSegment segment = LogSegment.create(dir, BASE, config, time);
    fill(segment, 10);

    // When / Then
    assertThat(segment.findOffsetByTimestamp(1000, BASE, LogConfig.defaults().recordLimits()))
        .map(t -> t.offset)
        .hasValue(BASE);
    assertThat(segment.findOffsetByTimestamp(1041, BASE, LogConfig.defaults().recordLimits()))
        .map(t -> t.offset)
        .hasValue(BASE + 5);
    assertThat(segment.findOffsetByTimestamp(1041, BASE + 7, LogConfig.defaults().recordLimits()))
        .map(t -> t.offset)
        .hasValue(BASE + 7);
    assertThat(segment.findOffsetByTimestamp(1091, BASE, LogConfig.defaults().recordLimits()))
        .isEmpty();
  }

  @Test
  void rollsOnSizeAgeIndexAndOffsetRangeButNeverWhenEmpty() throws Exception {
    // Given
    LogConfig config = LogConfig.builder().segmentBytes(5_000).segmentMs(1_000).build();
    LogSegment segment = LogSegment.create(dir, BASE, config, time);
    long now = time.milliseconds();

    // When / Then
    assertThat(segment.shouldRoll(10_000, BASE, 1000, now, config, config.segmentMs())).isFalse();
    fill(segment, 2);
    assertThat(segment.shouldRoll(100, BASE + 2, 1000, now, config, config.segmentMs())).isFalse();
    assertThat(segment.shouldRoll(4_000, BASE + 2, 1000, now, config, config.segmentMs())).isTrue();
    assertThat(segment.shouldRoll(100, BASE + 2, 2_001, now, config, config.segmentMs())).isTrue();
    assertThat(
            segment.shouldRoll(
                100, BASE + Integer.MAX_VALUE + 1L, 1000, now, config, config.segmentMs()))
        .isTrue();
  }

  /** The segment's offset index; the test's segments never close idle files, so it stays valid. */
  private static io.brook.storage.index.OffsetIndex offsetIndexOf(LogSegment segment)
      throws java.io.IOException {
    try (PinnedSegment pinned = segment.pin()) {
      return pinned.offsetIndex();
    }
  }
}
