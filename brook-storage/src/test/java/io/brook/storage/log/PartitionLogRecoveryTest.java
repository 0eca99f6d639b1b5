package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import io.brook.storage.testing.LogReads;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogRecoveryTest {
  @TempDir Path root;

  @Test
  void reopensACleanlyClosedLogWithEverythingInPlace() throws Exception {
    // Given
    LogFixture fixture =
        new LogFixture(root).config(LogConfig.builder().segmentBytes(3_000).build());
    PartitionLog log = fixture.open();
    List<byte[]> written = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      MemoryRecords batch = Batches.sized(2, 300, 1000L + i, i);
      log.appendAsLeader(batch, i / 10);
      written.add(Batches.bytes(batch));
    }
    long now = fixture.time().milliseconds();
    log.appendAsLeader(Batches.idempotent(3L, (short) 0, 0, 2, now), 1);
    log.close();

    // When
    PartitionLog reopened = fixture.open(log.recoveryPoint(), 0, 0, true);

    // Then
    assertThat(reopened.logEndOffset()).isEqualTo(42);
    assertThat(reopened.leaderEpochCache().latestEpoch()).hasValue(1);
    assertThat(LogReads.bytes(reopened, 0, 40)).isEqualTo(concat(written));
    // Batch i holds timestamps 1000+i and 1001+i, so 1010 is first reached at offset 19.
    assertThat(reopened.offsetForTimestamp(1010, 42)).map(t -> t.offset).hasValue(19L);
    // Producer state survived: the retry is recognised.
    assertThat(reopened.appendAsLeader(Batches.idempotent(3L, (short) 0, 0, 2, now), 1).duplicate())
        .isTrue();
  }

  @Test
  void recoversATornTailAfterACrash() throws Exception {
    // Given: a crash in the middle of writing the last batch
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    for (int i = 0; i < 5; i++) {
      log.appendAsLeader(Batches.sized(3, 200, 1L, i), 0);
    }
    log.close();
    Path segment = fixture.dir().resolve("00000000000000000000.log");
    long size = Files.size(segment);
    MemoryRecords extra = Batches.sized(3, 200, 1L, 99);
    byte[] torn = java.util.Arrays.copyOf(Batches.bytes(extra), 300);
    Files.write(segment, torn, java.nio.file.StandardOpenOption.APPEND);

    // When
    PartitionLog recovered = fixture.openAfterCrash(0);

    // Then
    assertThat(Files.size(segment)).isEqualTo(size);
    assertThat(recovered.logEndOffset()).isEqualTo(15);
    // The cut was forced to disk, so the recovery point may move to the new end.
    assertThat(recovered.recoveryPoint()).isEqualTo(15);
    assertThat(recovered.appendAsLeader(Batches.records(1, 1L), 0).firstOffset()).isEqualTo(15);
  }

  @Test
  void aCrashedLogThatLostNothingKeepsItsRecoveryPointAndIsNotFlushedAtLoad() throws Exception {
    // Given: 5 batches, of which the checkpoint says the first 2 were flushed
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    for (int i = 0; i < 5; i++) {
      log.appendAsLeader(Batches.sized(3, 200, 1L, i), 0);
    }
    log.close();

    // When
    PartitionLog recovered = fixture.openAfterCrash(6);

    // Then: everything is there, and the tail counts as unflushed until the next flush
    assertThat(recovered.logEndOffset()).isEqualTo(15);
    assertThat(recovered.recoveryPoint()).isEqualTo(6);
    recovered.close();
    assertThat(recovered.recoveryPoint()).isEqualTo(15);
  }

  @Test
  void cutsABatchWhoseOffsetsDoNotFitTheSegment() throws Exception {
    // Found by LogRecoveryFuzzTest: a well-checksummed batch 2^56 offsets past the segment's base
    // passed recovery, and closing the log then failed to index it.
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    log.appendAsLeader(Batches.records(3, 1L), 0);
    log.close();
    Path segment = fixture.dir().resolve("00000000000000000000.log");
    long size = Files.size(segment);
    MemoryRecords far = Batches.records(2, 1L);
    far.batches().iterator().next().setLastOffset(1L << 56);
    Files.write(segment, Batches.bytes(far), java.nio.file.StandardOpenOption.APPEND);

    // When
    PartitionLog recovered = fixture.openAfterCrash(0);

    // Then
    assertThat(Files.size(segment)).isEqualTo(size);
    assertThat(recovered.logEndOffset()).isEqualTo(3);
    recovered.close();
  }

  @Test
  void cutsAWellChecksummedControlBatchWhoseMarkerCannotBeRead() throws Exception {
    // Found by LogRecoveryFuzzTest: producer-state replay threw on such a batch and the log could
    // not be opened at all.
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    log.appendAsLeader(Batches.records(3, 1L), 0);
    log.close();
    Path segment = fixture.dir().resolve("00000000000000000000.log");
    long size = Files.size(segment);
    java.nio.ByteBuffer marker =
        MemoryRecords.withEndTransactionMarker(
                3L,
                1L,
                0,
                42L,
                (short) 1,
                new org.apache.kafka.common.record.internal.EndTransactionMarker(
                    org.apache.kafka.common.record.internal.ControlRecordType.COMMIT, 0))
            .buffer();
    marker.putShort(21, (short) (marker.getShort(21) | 6));
    LogFixture.rewriteCrc(marker);
    byte[] bytes = new byte[marker.remaining()];
    marker.get(bytes);
    Files.write(segment, bytes, java.nio.file.StandardOpenOption.APPEND);

    // When
    PartitionLog recovered = fixture.openAfterCrash(0);

    // Then
    assertThat(Files.size(segment)).isEqualTo(size);
    assertThat(recovered.logEndOffset()).isEqualTo(3);
    recovered.close();
  }

  @Test
  void cutsAChoppedLastBatchOfTheActiveSegment() throws Exception {
    // Given: the last batch lost its final 40 bytes
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    for (int i = 0; i < 4; i++) {
      log.appendAsLeader(Batches.sized(2, 300, 1L, i), 0);
    }
    byte[] firstThree = LogReads.bytes(log, 0, 6);
    log.close();
    Path segment = fixture.dir().resolve("00000000000000000000.log");
    try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
      file.setLength(file.length() - 40);
    }

    // When
    PartitionLog recovered = fixture.openAfterCrash(0);

    // Then
    assertThat(recovered.logEndOffset()).isEqualTo(6);
    assertThat(LogReads.bytes(recovered)).isEqualTo(firstThree);
  }

  @Test
  void truncatesAtAFlippedByteInTheActiveSegment() throws Exception {
    // Given
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    for (int i = 0; i < 4; i++) {
      log.appendAsLeader(Batches.sized(2, 300, 1L, i), 0);
    }
    byte[] firstTwo = LogReads.bytes(log, 0, 4);
    log.close();
    Path segment = fixture.dir().resolve("00000000000000000000.log");
    LogFixture.flipBits(segment, firstTwo.length + 200L, 0x01);

    // When
    PartitionLog recovered = fixture.openAfterCrash(0);

    // Then: batches before the flipped one survive byte for byte; the rest is gone
    assertThat(recovered.logEndOffset()).isEqualTo(4);
    assertThat(LogReads.bytes(recovered)).isEqualTo(firstTwo);
    assertThat(Files.size(segment)).isEqualTo(firstTwo.length);
  }

  @Test
  void truncatesAtACorruptBatchAndDropsLaterSegments() throws Exception {
    // Given: three segments; a byte flipped inside the second segment's second batch
    LogFixture fixture =
        new LogFixture(root).config(LogConfig.builder().segmentBytes(2_000).build());
    PartitionLog log = fixture.open();
    for (int i = 0; i < 12; i++) {
      log.appendAsLeader(Batches.sized(1, 500, 1L, i), 0);
    }
    List<Long> bases = log.segments().stream().map(s -> s.baseOffset()).toList();
    assertThat(bases.size()).isGreaterThanOrEqualTo(3);
    int batchSize = log.read(0, 1 << 20, 1, false).slice().sizeInBytes();
    log.close();
    Path second = fixture.dir().resolve(String.format("%020d.log", bases.get(1)));
    LogFixture.flipBits(second, batchSize + 100L, 0xff);

    // When: nothing was flushed past the first segment
    PartitionLog recovered = fixture.openAfterCrash(bases.get(1));

    // Then: the first batch of segment two survives, the rest is gone
    assertThat(recovered.logEndOffset()).isEqualTo(bases.get(1) + 1);
    assertThat(recovered.segments()).hasSize(2);
    assertThat(Files.exists(fixture.dir().resolve(String.format("%020d.log", bases.get(2)))))
        .isFalse();
    assertThat(LogReads.offsets(recovered, 0, recovered.logEndOffset()))
        .hasSize((int) (bases.get(1) + 1));
  }

  @Test
  void rebuildsADeletedIndex() throws Exception {
    // Given
    LogFixture fixture =
        new LogFixture(root)
            .config(LogConfig.builder().segmentBytes(5_000).indexIntervalBytes(100).build());
    PartitionLog log = fixture.open();
    for (int i = 0; i < 30; i++) {
      log.appendAsLeader(Batches.sized(1, 500, 1000L + i, i), 0);
    }
    log.close();
    Path index = fixture.dir().resolve("00000000000000000000.index");
    Path timeIndex = fixture.dir().resolve("00000000000000000000.timeindex");
    long indexSize = Files.size(index);
    Files.delete(index);
    Files.delete(timeIndex);

    // When: even a clean reopen notices
    PartitionLog reopened = fixture.open(log.recoveryPoint(), 0, 0, true);

    // Then
    assertThat(Files.size(index)).isEqualTo(indexSize);
    assertThat(reopened.logEndOffset()).isEqualTo(30);
    for (long offset = 0; offset < 30; offset++) {
      MemoryRecords read = reopened.read(offset, 1 << 20, 30, false).slice().copyToMemory();
      assertThat(Batches.offsets(read)).first().isEqualTo(offset);
    }
    assertThat(reopened.offsetForTimestamp(1005, 30)).map(t -> t.offset).hasValue(5L);
  }

  @Test
  void keepsTheCheckpointedLogStartAndHighWatermark() {
    // Given
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    log.appendAsLeader(Batches.records(10, 1L), 0);
    log.updateHighWatermark(8);
    log.maybeIncrementLogStartOffset(3);
    closeQuietly(log);

    // When
    PartitionLog reopened = fixture.open(10, 3, 8, true);

    // Then
    assertThat(reopened.logStartOffset()).isEqualTo(3);
    assertThat(reopened.highWatermark()).isEqualTo(8);
  }

  private static void closeQuietly(PartitionLog log) {
    try {
      log.close();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] concat(List<byte[]> parts) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }
}
