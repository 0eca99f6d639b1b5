package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.epoch.EpochEntry;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PartitionLogAppendTest {
  @TempDir Path root;

  @Test
  void assignsConsecutiveOffsetsAndStampsTheLeaderEpoch() {
    // Given
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    long now = fixture.time().milliseconds();

    // When
    LogAppendInfo first = log.appendAsLeader(Batches.records(3, now), 5);
    LogAppendInfo second = log.appendAsLeader(Batches.records(2, now), 5);

    // Then
    assertThat(first.firstOffset()).isZero();
    assertThat(first.lastOffset()).isEqualTo(2);
    assertThat(first.recordCount()).isEqualTo(3);
    assertThat(second.firstOffset()).isEqualTo(3);
    assertThat(second.lastOffset()).isEqualTo(4);
    assertThat(log.logEndOffset()).isEqualTo(5);
    MemoryRecords stored = log.read(0, 1 << 20, 5, false).slice().copyToMemory();
    assertThat(Batches.offsets(stored)).containsExactly(0L, 1L, 2L, 3L, 4L);
    for (RecordBatch batch : stored.batches()) {
      assertThat(batch.partitionLeaderEpoch()).isEqualTo(5);
      assertThat(batch.isValid()).isTrue();
    }
    assertThat(log.leaderEpochCache().latestEpoch()).hasValue(5);
  }

  @Test
  void aLeaderEpochStartsAtTheFirstOffsetItsLeaderWrote() {
    // Given: a leader of epoch 1 wrote offsets 0-4
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    long now = fixture.time().milliseconds();
    log.appendAsLeader(Batches.records(3, now), 1);
    log.appendAsLeader(Batches.idempotent(7L, (short) 0, 0, 2, now), 1);

    // When: the leader of epoch 4 writes, and the leader of epoch 6 only answers a retry and
    // refuses a sequence gap
    log.appendAsLeader(Batches.records(2, now), 4);
    LogAppendInfo retry = log.appendAsLeader(Batches.idempotent(7L, (short) 0, 0, 2, now), 6);
    assertError(
        () -> log.appendAsLeader(Batches.idempotent(7L, (short) 0, 9, 1, now), 6),
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);

    // Then: epochs start where their first batch landed; one that wrote nothing is not recorded
    assertThat(retry.duplicate()).isTrue();
    assertThat(log.leaderEpochCache().entries())
        .containsExactly(new EpochEntry(1, 0), new EpochEntry(4, 5));
    assertThat(log.endOffsetForEpoch(1).endOffset()).isEqualTo(5);
    assertThat(log.logEndOffset()).isEqualTo(7);
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void storesBatchesByteForByteWhateverTheirCompression(CompressionType compression) {
    // Given
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    MemoryRecords batch = Batches.records(50, fixture.time().milliseconds(), compression);

    // When
    log.appendAsLeader(batch, 0);

    // Then: the log holds exactly the producer's bytes, with only offsets and epoch rewritten.
    MemoryRecords stored = log.read(0, 1 << 20, log.logEndOffset(), false).slice().copyToMemory();
    assertThat(Batches.bytes(stored)).isEqualTo(Batches.bytes(batch));
    RecordBatch only = stored.batches().iterator().next();
    assertThat(only.compressionType()).isEqualTo(compression);
    assertThat(Batches.offsets(stored)).hasSize(50).startsWith(0L).endsWith(49L);
  }

  @Test
  void rejectsABatchWithABadCrcAndStaysUsable() {
    // Given
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    MemoryRecords batch = Batches.records(3, fixture.time().milliseconds());
    ByteBuffer buffer = batch.buffer();
    int last = buffer.limit() - 1;
    buffer.put(last, (byte) (buffer.get(last) ^ 0x5a));

    // When / Then
    assertError(() -> log.appendAsLeader(batch, 0), StorageError.CORRUPT_MESSAGE);
    assertThat(log.logEndOffset()).isZero();
    log.appendAsLeader(Batches.records(1, fixture.time().milliseconds()), 0);
    assertThat(log.logEndOffset()).isEqualTo(1);
  }

  @Test
  void rejectsABatchLargerThanMaxMessageBytes() {
    // Given
    LogFixture fixture =
        new LogFixture(root).config(LogConfig.builder().maxMessageBytes(1000).build());
    PartitionLog log = fixture.open();

    // When / Then
    assertError(
        () -> log.appendAsLeader(Batches.sized(2, 1000, fixture.time().milliseconds(), 1), 0),
        StorageError.MESSAGE_TOO_LARGE);
    assertThat(log.logEndOffset()).isZero();
  }

  @Test
  void rejectsOldMessageFormats() {
    // Given
    PartitionLog log = new LogFixture(root).open();
    MemoryRecords v1 =
        MemoryRecords.withRecords(
            RecordBatch.MAGIC_VALUE_V1,
            Compression.NONE,
            new SimpleRecord(
                1L, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)));
    MemoryRecords v0 =
        MemoryRecords.withRecords(
            RecordBatch.MAGIC_VALUE_V0,
            Compression.NONE,
            new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)));

    // When / Then
    assertError(() -> log.appendAsLeader(v1, 0), StorageError.INVALID_RECORD);
    assertError(() -> log.appendAsLeader(v0, 0), StorageError.INVALID_RECORD);
  }

  @Test
  void rejectsARecordCountThatDisagreesWithTheOffsetRange() {
    // Given: a batch claiming 3 offsets but 5 records, with a recomputed (valid) CRC
    PartitionLog log = new LogFixture(root).open();
    MemoryRecords batch = Batches.records(5, 1L);
    ByteBuffer buffer = batch.buffer();
    buffer.putInt(23, 2);
    LogFixture.rewriteCrc(buffer);

    // When / Then
    assertError(() -> log.appendAsLeader(batch, 0), StorageError.INVALID_RECORD);
  }

  @Test
  void rejectsTrailingBytesThatAreNotAWholeBatch() {
    // Given
    PartitionLog log = new LogFixture(root).open();
    MemoryRecords whole = Batches.records(2, 1L);
    ByteBuffer chopped = whole.buffer().duplicate();
    chopped.limit(chopped.limit() - 7);
    MemoryRecords torn =
        Batches.concat(
            List.of(Batches.records(1, 1L), MemoryRecords.readableRecords(chopped.slice())));

    // When / Then
    assertError(() -> log.appendAsLeader(torn, 0), StorageError.CORRUPT_MESSAGE);
    assertThat(log.logEndOffset()).isZero();
  }

  @Test
  void refusesControlBatchesFromClientsButTakesThemFromCoordinators() {
    // Given
    PartitionLog log = new LogFixture(root).open();
    MemoryRecords marker =
        MemoryRecords.withEndTransactionMarker(
            1L, 42L, (short) 0, new EndTransactionMarker(ControlRecordType.COMMIT, 0));

    // When / Then
    assertError(() -> log.appendAsLeader(marker, 0), StorageError.INVALID_RECORD);
    LogAppendInfo info = log.appendAsCoordinator(marker, 0);
    assertThat(info.batches()).singleElement().satisfies(b -> assertThat(b.control()).isTrue());
  }

  @Test
  void checksCreateTimeAgainstTheAllowedWindow() {
    // Given
    LogFixture fixture =
        new LogFixture(root)
            .config(
                LogConfig.builder()
                    .timestampBeforeMaxMs(60_000)
                    .timestampAfterMaxMs(1_000)
                    .build());
    PartitionLog log = fixture.open();
    long now = fixture.time().milliseconds();

    // When / Then
    assertError(
        () -> log.appendAsLeader(Batches.records(1, now + 5_000), 0),
        StorageError.INVALID_TIMESTAMP);
    assertError(
        () -> log.appendAsLeader(Batches.records(1, now - 120_000), 0),
        StorageError.INVALID_TIMESTAMP);
    assertThat(log.appendAsLeader(Batches.records(1, now - 30_000), 0).lastOffset()).isZero();
  }

  @Test
  void stampsTheBrokerClockUnderLogAppendTime() {
    // Given
    LogFixture fixture =
        new LogFixture(root)
            .config(LogConfig.builder().timestampType(TimestampType.LOG_APPEND_TIME).build());
    PartitionLog log = fixture.open();
    long now = fixture.time().milliseconds();

    // When
    LogAppendInfo info = log.appendAsLeader(Batches.records(3, 12345L), 0);

    // Then
    assertThat(info.logAppendTimeMs()).isEqualTo(now);
    RecordBatch stored =
        log.read(0, 1 << 20, 3, false).slice().copyToMemory().batches().iterator().next();
    assertThat(stored.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
    assertThat(stored.maxTimestamp()).isEqualTo(now);
    assertThat(stored.isValid()).isTrue();
  }

  @Test
  void requiresKeysOnCompactedTopics() {
    // Given
    PartitionLog log =
        new LogFixture(root).config(LogConfig.builder().compacted(true).build()).open();
    MemoryRecords keyless =
        MemoryRecords.withRecords(
            Compression.lz4().build(), new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)));

    // When / Then
    assertError(() -> log.appendAsLeader(keyless, 0), StorageError.INVALID_RECORD);
    log.appendAsLeader(Batches.records(2, 1L, CompressionType.LZ4), 0);
    assertThat(log.logEndOffset()).isEqualTo(2);
  }

  @Test
  void acknowledgesARetriedBatchWithItsOriginalOffsets() {
    // Given
    LogFixture fixture = new LogFixture(root);
    PartitionLog log = fixture.open();
    long now = fixture.time().milliseconds();
    log.appendAsLeader(Batches.records(4, now), 0);
    LogAppendInfo original = log.appendAsLeader(Batches.idempotent(7L, (short) 0, 0, 3, now), 0);

    // When: the producer never saw the response and sends the same batch again
    LogAppendInfo retry = log.appendAsLeader(Batches.idempotent(7L, (short) 0, 0, 3, now), 0);

    // Then
    assertThat(retry.duplicate()).isTrue();
    assertThat(retry.firstOffset()).isEqualTo(original.firstOffset()).isEqualTo(4);
    assertThat(retry.lastOffset()).isEqualTo(original.lastOffset()).isEqualTo(6);
    assertThat(log.logEndOffset()).isEqualTo(7);
    assertThat(original.batches())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.producerId()).isEqualTo(7L);
              assertThat(b.baseSequence()).isZero();
              assertThat(b.lastSequence()).isEqualTo(2);
            });
  }

  @Test
  void failsASequenceGapAndFencesAnOldEpoch() {
    // Given
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.idempotent(9L, (short) 3, 0, 2, 1L), 0);

    // When / Then
    assertError(
        () -> log.appendAsLeader(Batches.idempotent(9L, (short) 3, 5, 1, 1L), 0),
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assertError(
        () -> log.appendAsLeader(Batches.idempotent(9L, (short) 2, 2, 1, 1L), 0),
        StorageError.INVALID_PRODUCER_EPOCH);
    assertThat(log.logEndOffset()).isEqualTo(2);
  }

  @Test
  void aNewProducerMustStartAtSequenceZeroOnAPartitionThatNeverHeldARecord() {
    // Given a partition just created, and a producer whose first request (sequences 0-16) was
    // refused before this broker led the partition while its second (17-21) is here first
    PartitionLog log = new LogFixture(root).open();

    // When / Then: the second is refused as out of order, so the producer retries it after the
    // first, instead of the first being out of order forever
    assertError(
        () -> log.appendAsLeader(Batches.idempotent(11L, (short) 0, 17, 5, 1L), 0),
        StorageError.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assertThat(log.logEndOffset()).isZero();
    log.appendAsLeader(Batches.idempotent(11L, (short) 0, 0, 17, 1L), 0);
    log.appendAsLeader(Batches.idempotent(11L, (short) 0, 17, 5, 1L), 0);
    assertThat(log.logEndOffset()).isEqualTo(22);

    // And another producer new to the partition, now that it held records, may start anywhere
    // (its state may have expired here)
    log.appendAsLeader(Batches.idempotent(12L, (short) 0, 40, 2, 1L), 0);
    assertThat(log.logEndOffset()).isEqualTo(24);
  }

  @Test
  void aPartitionEmptiedOfItsRecordsStillAcceptsAnyFirstSequence() {
    // Given a partition that held records, all deleted since (DeleteRecords)
    PartitionLog log = new LogFixture(root).open();
    log.appendAsLeader(Batches.records(3, 1L), 0);
    log.updateHighWatermark(3);
    log.maybeIncrementLogStartOffset(3);

    // When a producer with no state here continues its sequence
    log.appendAsLeader(Batches.idempotent(13L, (short) 0, 9, 2, 1L), 0);

    // Then it is taken
    assertThat(log.logEndOffset()).isEqualTo(5);
  }

  @Test
  void followerAppendsKeepTheLeadersOffsetsAndEpochs() {
    // Given: a leader log with two epochs
    PartitionLog leader = new LogFixture(root.resolve("leader")).open();
    leader.appendAsLeader(Batches.records(3, 1L), 1);
    leader.appendAsLeader(Batches.records(2, 1L), 4);
    MemoryRecords fetched =
        leader.read(0, 1 << 20, leader.logEndOffset(), false).slice().copyToMemory();
    PartitionLog follower = new LogFixture(root.resolve("follower")).open();

    // When
    follower.appendAsFollower(fetched);

    // Then
    assertThat(follower.logEndOffset()).isEqualTo(5);
    assertThat(follower.leaderEpochCache().entries())
        .isEqualTo(leader.leaderEpochCache().entries());
    assertError(() -> follower.appendAsFollower(fetched), StorageError.INVALID_RECORD);
  }

  private static void assertError(Runnable action, StorageError expected) {
    assertThatThrownBy(action::run)
        .isInstanceOf(StorageException.class)
        .satisfies(e -> assertThat(((StorageException) e).error()).isEqualTo(expected));
  }
}
