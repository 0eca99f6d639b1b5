package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.segment.FileSlice;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Path;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogReadTest {
  @TempDir Path root;

  @Test
  void neverReadsPastTheCallersUpperBound() {
    // Given: 10 batches of 10 records
    PartitionLog log = new LogFixture(root).open();
    for (int i = 0; i < 10; i++) {
      log.appendAsLeader(Batches.records(10, 1L), 0);
    }
    log.updateHighWatermark(40);

    // When
    LogReadResult consumer = log.read(15, 1 << 20, log.highWatermark(), false);
    LogReadResult follower = log.read(15, 1 << 20, log.logEndOffset(), false);

    // Then: the consumer sees batches 10..39, starting at the batch that holds offset 15
    assertThat(Batches.offsets(consumer.slice().copyToMemory())).first().isEqualTo(10L);
    assertThat(Batches.offsets(consumer.slice().copyToMemory())).last().isEqualTo(39L);
    assertThat(Batches.offsets(follower.slice().copyToMemory())).last().isEqualTo(99L);
    assertThat(consumer.highWatermark()).isEqualTo(40);
    assertThat(log.read(40, 1 << 20, 40, false).slice().sizeInBytes()).isZero();
  }

  @Test
  void boundsByAnArbitraryOffsetToo() {
    // Given
    PartitionLog log = new LogFixture(root).open();
    for (int i = 0; i < 5; i++) {
      log.appendAsLeader(Batches.records(4, 1L), 0);
    }

    // When: a last-stable-offset style bound that is neither the end nor the high watermark
    MemoryRecords read = log.read(0, 1 << 20, 12, false).slice().copyToMemory();

    // Then
    assertThat(Batches.offsets(read)).hasSize(12).last().isEqualTo(11L);
  }

  @Test
  void outOfRangeBelowTheStartAndAboveTheEnd() {
    // Given
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.records(10, 1L), 0);
    log.updateHighWatermark(10);
    log.maybeIncrementLogStartOffset(4);

    // When / Then
    assertOutOfRange(() -> log.read(3, 1000, 10, false));
    assertOutOfRange(() -> log.read(11, 1000, 10, false));
    assertThat(log.read(10, 1000, 10, false).slice().sizeInBytes()).isZero();
    assertThat(log.read(4, 1 << 20, 10, false).slice().sizeInBytes()).isPositive();
  }

  @Test
  void returnsAWholeFirstBatchWhenAskedEvenIfLargerThanMaxBytes() {
    // Given
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.sized(10, 1000, 1L, 3), 0);

    // When
    FileSlice capped = log.read(0, 100, log.logEndOffset(), false).slice();
    FileSlice whole = log.read(0, 100, log.logEndOffset(), true).slice();

    // Then: the capped read sends no part of the batch (Kafka sends nothing); the other sends it
    // whole
    assertThat(capped.sizeInBytes()).isZero();
    assertThat(Batches.offsets(whole.copyToMemory())).hasSize(10);
  }

  @Test
  void readsSpanSegmentsAndStartAtSegmentBoundaries() {
    // Given: tiny segments so that every two batches roll
    PartitionLog log =
        new LogFixture(root).config(LogConfig.builder().segmentBytes(2_500).build()).open();
    for (int i = 0; i < 20; i++) {
      log.appendAsLeader(Batches.sized(1, 1000, 1L, i), 0);
    }
    assertThat(log.segments()).hasSizeGreaterThan(5);

    // When / Then: every offset is found, and a read stays within one segment file
    for (long offset = 0; offset < 20; offset++) {
      LogReadResult result = log.read(offset, 1 << 20, 20, false);
      assertThat(Batches.offsets(result.slice().copyToMemory())).first().isEqualTo(offset);
      assertThat(result.fetchOffsetMetadata().segmentBaseOffset()).isLessThanOrEqualTo(offset);
    }
  }

  @Test
  void findsTheFirstOffsetAtOrAfterATimestamp() {
    // Given: timestamps 100, 200, ... across batches and segments
    PartitionLog log =
        new LogFixture(root)
            .config(LogConfig.builder().segmentBytes(300).indexIntervalBytes(1).build())
            .open();
    for (int i = 0; i < 10; i++) {
      log.appendAsLeader(Batches.withTimestamps(1000 + i * 100L, 1000 + i * 100L + 50), 0);
    }
    long end = log.logEndOffset();

    // When / Then
    assertThat(log.offsetForTimestamp(0, end)).map(t -> t.offset).hasValue(0L);
    assertThat(log.offsetForTimestamp(1000, end)).map(t -> t.offset).hasValue(0L);
    assertThat(log.offsetForTimestamp(1001, end)).map(t -> t.offset).hasValue(1L);
    assertThat(log.offsetForTimestamp(1351, end)).map(t -> t.offset).hasValue(8L);
    assertThat(log.offsetForTimestamp(1950, end)).map(t -> t.offset).hasValue(19L);
    assertThat(log.offsetForTimestamp(1951, end)).isEmpty();
    assertThat(log.offsetForTimestamp(1500, 6)).isEmpty();
    FileRecords.TimestampAndOffset max = log.maxTimestampRecord().orElseThrow();
    assertThat(max.timestamp).isEqualTo(1950);
    assertThat(max.offset).isEqualTo(19);
  }

  @Test
  void maxTimestampIsNotAlwaysTheLastRecord() {
    // Given
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.withTimestamps(10, 90, 30), 0);
    log.appendAsLeader(Batches.withTimestamps(40, 50), 0);

    // When / Then
    FileRecords.TimestampAndOffset max = log.maxTimestampRecord().orElseThrow();
    assertThat(max.offset).isEqualTo(1);
    assertThat(max.timestamp).isEqualTo(90);
  }

  private static void assertOutOfRange(Runnable action) {
    assertThatThrownBy(action::run)
        .isInstanceOf(StorageException.class)
        .satisfies(
            e ->
                assertThat(((StorageException) e).error())
                    .isEqualTo(StorageError.OFFSET_OUT_OF_RANGE));
  }
}
