package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.segment.FileSlice;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionTest {
  private static final long HOUR = 3_600_000L;

  @TempDir Path root;

  private LogFixture fixture;

  /** One ~1.1 KB batch per segment (segment.bytes 1500), so segment i holds offset i. */
  private PartitionLog open(LogConfig.Builder config) {
    fixture = new LogFixture(root).config(config.segmentBytes(1500).build());
    return fixture.open();
  }

  private static void append(PartitionLog log, long timestamp) {
    log.appendAsLeader(Batches.sized(1, 1024, timestamp, timestamp), 0);
    log.updateHighWatermark(log.logEndOffset());
  }

  private static List<Long> bases(PartitionLog log) {
    return log.segments().stream().map(LogSegment::baseOffset).toList();
  }

  @Test
  void timeRetentionDeletesExactlyTheSegmentsWhoseNewestRecordExpired() throws Exception {
    // Given: five segments with records one hour apart, retention of 2.5 hours
    PartitionLog log = open(LogConfig.builder().retentionMs(5 * HOUR / 2));
    long now = fixture.time().milliseconds();
    for (int i = 0; i < 5; i++) {
      append(log, now - (4 - i) * HOUR);
    }
    assertThat(bases(log)).containsExactly(0L, 1L, 2L, 3L, 4L);

    // When
    int deleted = log.deleteOldSegments();

    // Then: the records 4 h and 3 h old go; 2 h, 1 h and 0 h stay
    assertThat(deleted).isEqualTo(2);
    assertThat(bases(log)).containsExactly(2L, 3L, 4L);
    assertThat(log.logStartOffset()).isEqualTo(2);
    assertThat(log.logEndOffset()).isEqualTo(5);
    assertThat(Files.exists(log.dir().resolve("00000000000000000000.log.deleted"))).isTrue();
    assertThat(Files.exists(log.dir().resolve("00000000000000000000.log"))).isFalse();
    assertThat(log.deleteOldSegments()).isZero();
  }

  @Test
  void sizeRetentionDeletesTheOldestSegmentsUntilThePartitionFits() {
    // Given: five segments of ~1.1 KB, retention.bytes of 3 segments
    PartitionLog log = open(LogConfig.builder().retentionMs(-1));
    long now = fixture.time().milliseconds();
    for (int i = 0; i < 5; i++) {
      append(log, now);
    }
    int segmentSize = log.segments().iterator().next().sizeInBytes();
    log.updateConfig(log.config().toBuilder().retentionBytes(3L * segmentSize).build());

    // When
    log.deleteOldSegments();

    // Then
    assertThat(bases(log)).containsExactly(2L, 3L, 4L);
    assertThat(log.logStartOffset()).isEqualTo(2);
  }

  @Test
  void compactOnlyTopicsKeepEverythingAndUncommittedSegmentsStay() {
    // Given: expired data, but cleanup.policy=compact
    PartitionLog log = open(LogConfig.builder().retentionMs(HOUR).compacted(true));
    long old = fixture.time().milliseconds() - 10 * HOUR;
    for (int i = 0; i < 3; i++) {
      append(log, old);
    }

    // Then
    assertThat(log.deleteOldSegments()).isZero();

    // And with the delete policy, a segment above the high watermark still stays
    log.updateConfig(log.config().toBuilder().compacted(false).build());
    log.appendAsLeader(Batches.sized(1, 1024, old, 9), 0);
    log.updateHighWatermark(2);
    log.deleteOldSegments();
    assertThat(bases(log)).containsExactly(2L, 3L);
  }

  @Test
  void aQuietTopicWhoseNewestRecordExpiredRollsAndDeletesItsActiveSegment() {
    // Given
    PartitionLog log = open(LogConfig.builder().retentionMs(HOUR));
    append(log, fixture.time().milliseconds());
    append(log, fixture.time().milliseconds());

    // When
    fixture.time().advance(2 * HOUR);
    log.deleteOldSegments();

    // Then: an empty active segment at the log end is all that is left
    assertThat(bases(log)).containsExactly(2L);
    assertThat(log.logStartOffset()).isEqualTo(2);
    assertThat(log.logEndOffset()).isEqualTo(2);
  }

  @Test
  void aReaderHoldingADeletedSegmentFinishesItsReadAndFilesGoAfterTheDelay() throws Exception {
    // Given: a fetch found segment 0 and holds its file range
    PartitionLog log = open(LogConfig.builder().retentionMs(HOUR).fileDeleteDelayMs(60_000));
    append(log, fixture.time().milliseconds());
    append(log, fixture.time().milliseconds() + HOUR);
    FileSlice slice = log.read(0, 1 << 20, log.highWatermark(), true).slice();

    // When: retention removes segment 0 from the log
    fixture.time().advance(HOUR + 1);
    log.deleteOldSegments();

    // Then: new reads below the start are out of range, the held range still reads whole
    assertThat(log.logStartOffset()).isEqualTo(1);
    assertThatThrownBy(() -> log.read(0, 1 << 20, log.highWatermark(), true))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.error()).isEqualTo(StorageError.OFFSET_OUT_OF_RANGE));
    // A zero-copy send of the held range (transferTo, as sendfile) into a slow sink still works.
    java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
    slice.pin();
    try (var out = java.nio.channels.Channels.newChannel(sink)) {
      long sent = 0;
      while (sent < slice.sizeInBytes()) {
        sent +=
            slice
                .channel()
                .transferTo(
                    slice.position() + sent, Math.min(100, slice.sizeInBytes() - sent), out);
      }
    } finally {
      slice.unpin();
    }
    assertThat(sink.size()).isEqualTo(slice.sizeInBytes());
    MemoryRecords held = slice.copyToMemory();
    assertThat(held.batches()).extracting(RecordBatch::baseOffset).containsExactly(0L);
    assertThat(held.batches().iterator().next().isValid()).isTrue();

    // And the files go only once file.delete.delay.ms has passed
    Path deleted = log.dir().resolve("00000000000000000000.log.deleted");
    assertThat(log.deletePendingFiles()).isZero();
    assertThat(Files.exists(deleted)).isTrue();
    fixture.time().advance(60_000);
    assertThat(log.deletePendingFiles()).isEqualTo(1);
    assertThat(Files.exists(deleted)).isFalse();
  }

  @Test
  void deleteRecordsRemovesTheWholeSegmentsBelowTheNewStart() {
    // Given
    PartitionLog log = open(LogConfig.builder().retentionMs(-1));
    for (int i = 0; i < 4; i++) {
      append(log, fixture.time().milliseconds());
    }

    // When: DeleteRecords up to offset 2 (inside no segment but at segment 2's base)
    log.maybeIncrementLogStartOffset(2);

    // Then
    assertThat(bases(log)).containsExactly(2L, 3L);
    assertThat(log.logStartOffset()).isEqualTo(2);
  }

  @Test
  void truncatedSegmentsAreDeletedAsynchronouslyToo() throws Exception {
    // Given
    PartitionLog log = open(LogConfig.builder().fileDeleteDelayMs(60_000));
    for (int i = 0; i < 3; i++) {
      log.appendAsLeader(Batches.sized(1, 1024, 1L, i), 0);
    }
    FileSlice held = log.read(2, 1 << 20, log.logEndOffset(), true).slice();

    // When
    log.truncateTo(1);

    // Then
    assertThat(bases(log)).containsExactly(0L, 1L);
    assertThat(log.logEndOffset()).isEqualTo(1);
    assertThat(held.copyToMemory().batches().iterator().next().baseOffset()).isEqualTo(2);
    assertThat(Files.exists(log.dir().resolve("00000000000000000002.log.deleted"))).isTrue();
  }

  @Test
  void deadlineRollsSegmentsSoNoneSpansMoreThanHalfTheCheckInterval() {
    // Given: retention.deadline.enable with a check interval of 5 minutes, segment.ms of 7 days
    fixture =
        new LogFixture(root)
            .config(LogConfig.builder().retentionMs(HOUR).retentionDeadlineEnable(true).build());
    PartitionLog log = fixture.open();
    long t0 = fixture.time().milliseconds();
    long interval = LogOpenOptions.DEFAULT_RETENTION_CHECK_INTERVAL_MS;

    // When: one small record a minute for 12 minutes
    for (int i = 0; i <= 12; i++) {
      log.appendAsLeader(Batches.records(1, t0 + i * 60_000L), 0);
    }

    // Then: a new segment every time a record is more than 2.5 minutes after its segment's first
    assertThat(bases(log)).containsExactly(0L, 3L, 6L, 9L, 12L);
    assertThat(LogRetention.effectiveSegmentMs(log.config(), interval)).isEqualTo(interval / 2);
    assertThat(LogRetention.effectiveSegmentMs(LogConfig.defaults(), interval))
        .isEqualTo(LogConfig.DEFAULT_SEGMENT_MS);
  }

  @Test
  void compactedLogsRollByMaxCompactionLagToo() {
    LogConfig compacted = LogConfig.builder().compacted(true).maxCompactionLagMs(60_000).build();
    assertThat(LogRetention.effectiveSegmentMs(compacted, 300_000)).isEqualTo(60_000);
    assertThat(LogRetention.effectiveSegmentMs(compacted.toBuilder().compacted(false).build(), 1))
        .isEqualTo(LogConfig.DEFAULT_SEGMENT_MS);
  }
}
