package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.epoch.EpochEndOffset;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import io.brook.storage.testing.LogReads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogSegmentsTest {
  @TempDir Path root;

  @Test
  void rollsAtSegmentBytesAndNamesFilesAfterTheirBaseOffset() throws Exception {
    // Given
    PartitionLog log =
        new LogFixture(root).config(LogConfig.builder().segmentBytes(4096).build()).open();

    // When: 10 batches of ~1.1 KB
    for (int i = 0; i < 10; i++) {
      log.appendAsLeader(Batches.sized(1, 1024, 1L, i), 0);
    }

    // Then
    List<Long> bases = log.segments().stream().map(LogSegment::baseOffset).toList();
    assertThat(bases).containsExactly(0L, 3L, 6L, 9L);
    for (LogSegment segment : log.segments()) {
      assertThat(segment.sizeInBytes()).isLessThanOrEqualTo(4096);
    }
    assertThat(Files.exists(log.dir().resolve("00000000000000000003.log"))).isTrue();
    assertThat(Files.exists(log.dir().resolve("00000000000000000003.index"))).isTrue();
    assertThat(Files.exists(log.dir().resolve("00000000000000000003.timeindex"))).isTrue();
    // Rolled segments have trimmed indexes and a producer snapshot at their end.
    assertThat(Files.size(log.dir().resolve("00000000000000000000.index")))
        .isLessThan(LogConfig.DEFAULT_SEGMENT_INDEX_BYTES);
    assertThat(log.producerState().snapshotOffsets()).contains(3L, 6L, 9L);
  }

  @Test
  void rollsWhenTheSegmentIsOlderThanSegmentMs() {
    // Given: segment.ms of one hour, measured in record time
    PartitionLog log =
        new LogFixture(root).config(LogConfig.builder().segmentMs(3_600_000).build()).open();
    long t0 = 1_000_000L;

    // When
    log.appendAsLeader(Batches.records(1, t0), 0);
    log.appendAsLeader(Batches.records(1, t0 + 1_000), 0);
    log.appendAsLeader(Batches.records(1, t0 + 3_600_001), 0);

    // Then
    assertThat(log.segments().stream().map(LogSegment::baseOffset)).containsExactly(0L, 2L);
  }

  @Test
  void rollsWhenAnIndexIsFull() {
    // Given: an index with room for 4 entries, an entry per batch
    PartitionLog log =
        new LogFixture(root)
            .config(LogConfig.builder().segmentIndexBytes(32).indexIntervalBytes(1).build())
            .open();

    // When
    for (int i = 0; i < 12; i++) {
      log.appendAsLeader(Batches.records(1, 1L), 0);
    }

    // Then: every segment kept within its index, and every offset still reads back
    assertThat(log.segments()).hasSizeGreaterThan(1);
    for (long offset = 0; offset < 12; offset++) {
      MemoryRecords read = log.read(offset, 1 << 20, 12, false).slice().copyToMemory();
      assertThat(Batches.offsets(read)).first().isEqualTo(offset);
    }
  }

  @Test
  void truncationDropsTheTailAcrossSegmentsWithItsEpochs() {
    // Given: offsets 0-29 in three segments, epochs 1 then 2 (from offset 20)
    PartitionLog log =
        new LogFixture(root).config(LogConfig.builder().segmentBytes(1_500).build()).open();
    for (int i = 0; i < 30; i++) {
      log.appendAsLeader(Batches.sized(1, 400, 1L, i), i < 20 ? 1 : 2);
    }
    int segmentsBefore = log.segments().size();

    // When
    log.truncateTo(12);

    // Then
    assertThat(log.logEndOffset()).isEqualTo(12);
    assertThat(log.segments().size()).isLessThan(segmentsBefore);
    assertThat(log.leaderEpochCache().latestEpoch()).hasValue(1);
    assertThat(LogReads.offsets(log, 0, 12)).hasSize(12);
    log.appendAsLeader(Batches.records(2, 1L), 3);
    assertThat(log.logEndOffset()).isEqualTo(14);
    assertThat(log.endOffsetForEpoch(1)).isEqualTo(new EpochEndOffset(1, 12));
    assertThat(log.endOffsetForEpoch(3)).isEqualTo(new EpochEndOffset(3, 14));
  }

  @Test
  void truncationAtTheLogEndDropsAnEpochWithoutRecords() throws Exception {
    // Given: offsets 0-7 in epoch 0, then epoch 1 recorded at the log end by a leadership that
    // wrote nothing (the broker lost it before its first append)
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.records(8, 1L), 0);
    log.assignEpoch(1, 8);

    // When the follower it became truncates to the leader's answer, at (or past) its log end
    log.truncateTo(8);

    // Then no record goes, and neither does epoch 1: the follower's last fetched epoch is 0 again
    assertThat(log.logEndOffset()).isEqualTo(8);
    assertThat(log.leaderEpochCache().latestEpoch()).hasValue(0);
    assertThat(log.endOffsetForEpoch(0)).isEqualTo(new EpochEndOffset(0, 8));
    log.truncateTo(20);
    assertThat(log.logEndOffset()).isEqualTo(8);
    assertThat(log.leaderEpochCache().latestEpoch()).hasValue(0);
  }

  @Test
  void truncateFullyStartsAnEmptyLogAtTheGivenOffset() {
    // Given
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.records(5, 1L), 0);

    // When
    log.truncateFullyAndStartAt(1000);

    // Then
    assertThat(log.logStartOffset()).isEqualTo(1000);
    assertThat(log.logEndOffset()).isEqualTo(1000);
    assertThat(log.appendAsLeader(Batches.records(1, 1L), 0).firstOffset()).isEqualTo(1000);
    assertThat(log.segments().stream().map(LogSegment::baseOffset)).containsExactly(1000L);
  }

  @Test
  void flushMessagesMovesTheRecoveryPoint() {
    // Given
    PartitionLog log =
        new LogFixture(root).config(LogConfig.builder().flushMessages(5).build()).open();

    // When
    log.appendAsLeader(Batches.records(3, 1L), 0);
    long before = log.recoveryPoint();
    log.appendAsLeader(Batches.records(3, 1L), 0);

    // Then
    assertThat(before).isZero();
    assertThat(log.recoveryPoint()).isEqualTo(6);
  }

  @Test
  void flushMsFlushesOnTheNextCheck() {
    // Given
    LogFixture fixture = new LogFixture(root).config(LogConfig.builder().flushMs(1_000).build());
    PartitionLog log = fixture.open();
    log.appendAsLeader(Batches.records(3, 1L), 0);

    // When
    log.flushIfDue();
    long early = log.recoveryPoint();
    fixture.time().advance(1_000);
    log.flushIfDue();

    // Then
    assertThat(early).isZero();
    assertThat(log.recoveryPoint()).isEqualTo(3);
  }
}
