package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.management.ThreadMXBean;
import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.record.RecordValidationException;
import io.brook.storage.testing.RawBatches;
import io.brook.storage.testing.RawBatches.Record;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every record-level rule of {@link BatchValidator}, for uncompressed batches and each codec. The
 * batches are built byte by byte ({@link RawBatches}) with a correct CRC, so only the lie under
 * test is wrong; before record-level validation all of them but the key and header checks were
 * accepted.
 */
class BatchValidatorTest {
  private static final long NOW = 1_700_000_000_000L;
  private static final long HOUR = 3_600_000L;
  private static final LogConfig CONFIG =
      LogConfig.defaults().toBuilder().timestampBeforeMaxMs(HOUR).build();

  private static RawBatches.Batch threeRecords(CompressionType compression) {
    return RawBatches.batch()
        .compression(compression)
        .baseTimestamp(NOW)
        .add(Record.of(0, "k0", "v0").header("h", "x"))
        .add(Record.of(1, "k1", null))
        .add(Record.of(2, null, "v2").header("h", null).header("i", "y"));
  }

  private static MemoryRecords batchOf(CompressionType compression, Record... records) {
    RawBatches.Batch batch = RawBatches.batch().compression(compression).baseTimestamp(NOW);
    for (Record record : records) {
      batch.add(record);
    }
    return batch.build();
  }

  private static BatchValidator.Summary validate(MemoryRecords records) {
    return BatchValidator.validate(records, CONFIG, AppendOrigin.CLIENT, NOW);
  }

  private static void assertRefused(
      ThrowingCallable call, StorageError error, int recordIndex, String messagePart) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            RecordValidationException.class,
            e -> {
              assertThat(e.error()).isEqualTo(error);
              assertThat(e.recordIndex()).isEqualTo(recordIndex);
            })
        .hasMessageContaining(messagePart);
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aWellFormedBatchIsAccepted(CompressionType compression) {
    MemoryRecords records = threeRecords(compression).build();

    BatchValidator.Summary summary = validate(records);

    assertThat(summary.recordCount()).isEqualTo(3);
    assertThat(summary.lastOffset() - summary.firstOffset()).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aHeaderCountAboveTheRecordsPresentIsRefused(CompressionType compression) {
    // One real record, a header claiming Integer.MAX_VALUE of them (offsets agree with the count).
    MemoryRecords records =
        RawBatches.batch()
            .compression(compression)
            .baseTimestamp(NOW)
            .add(Record.of(0, "k", "v"))
            .count(Integer.MAX_VALUE)
            .build();

    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 1, "ends inside it");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aHeaderCountBelowTheRecordsPresentIsRefused(CompressionType compression) {
    MemoryRecords records = threeRecords(compression).count(2).build();

    assertRefused(
        () -> validate(records), StorageError.INVALID_RECORD, 2, "follow its last record");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void offsetDeltasOutOfOrderAreRefused(CompressionType compression) {
    MemoryRecords records =
        batchOf(
            compression, Record.of(0, "a", "1"), Record.of(2, "b", "2"), Record.of(1, "c", "3"));

    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 1, "offset delta 2");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aLastOffsetDeltaOtherThanCountMinusOneIsRefused(CompressionType compression) {
    MemoryRecords records = threeRecords(compression).lastOffsetDelta(5).build();

    assertThatThrownBy(() -> validate(records))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.error()).isEqualTo(StorageError.INVALID_RECORD))
        .hasMessageContaining("spans 6 offsets but reports 3 records");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aRecordLongerThanItsBytesIsRefused(CompressionType compression) {
    MemoryRecords records =
        batchOf(compression, Record.of(0, "k0", "v0"), Record.of(1, "k1", "v1").lengthDelta(3));

    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 1, "its fields take");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aRecordShorterThanItsFieldsIsRefused(CompressionType compression) {
    MemoryRecords records =
        batchOf(
            compression,
            Record.of(0, "key-0", "value-0").lengthDelta(-2),
            Record.of(1, "k1", "v1"));

    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 0, "does not fit");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aKeyLongerThanItsRecordIsRefused(CompressionType compression) {
    MemoryRecords records = batchOf(compression, Record.of(0, "key", "value").keyLength(100));

    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 0, "key length of 100");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aValueLengthBelowMinusOneIsRefused(CompressionType compression) {
    MemoryRecords records = batchOf(compression, Record.of(0, "key", "value").valueLength(-7));

    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 0, "value length of -7");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aHeaderCountAboveTheHeadersPresentIsRefused(CompressionType compression) {
    MemoryRecords records =
        batchOf(
            compression,
            Record.of(0, "k", "v"),
            Record.of(1, "k", "v").header("h", "v").headerCount(3));

    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 1, "header count of 3");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aNegativeHeaderKeyLengthIsRefused(CompressionType compression) {
    MemoryRecords records =
        batchOf(compression, Record.of(0, "k", "v").header("h", "v").firstHeaderKeyLength(-1));

    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 0, "header key length");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void bytesAfterTheLastRecordAreRefused(CompressionType compression) {
    MemoryRecords records = threeRecords(compression).trailing(new byte[] {0, 0, 0}).build();

    assertRefused(
        () -> validate(records), StorageError.INVALID_RECORD, 3, "follow its last record");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aRecordOlderThanTimestampBeforeMaxMsIsRefusedWhereverItIs(CompressionType compression) {
    // The first record, the only one checked before, is recent; the second is two hours old.
    MemoryRecords records =
        batchOf(
            compression, Record.of(0, "k", "v"), Record.of(1, "k", "v").timestampDelta(-2 * HOUR));

    assertRefused(
        () -> validate(records), StorageError.INVALID_TIMESTAMP, 1, "message.timestamp.before");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aRecordNewerThanTimestampAfterMaxMsIsRefusedWhateverTheHeaderSays(
      CompressionType compression) {
    // The header's max timestamp (the only one checked before) is now; a record is 2 hours ahead.
    MemoryRecords records =
        RawBatches.batch()
            .compression(compression)
            .baseTimestamp(NOW)
            .maxTimestamp(NOW)
            .add(Record.of(0, "k", "v"))
            .add(Record.of(1, "k", "v").timestampDelta(2 * HOUR))
            .build();

    assertRefused(
        () -> validate(records), StorageError.INVALID_TIMESTAMP, 1, "message.timestamp.after");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aHeaderMaxTimestampThatLiesIsRewrittenFromTheRecords(CompressionType compression) {
    MemoryRecords records =
        RawBatches.batch()
            .compression(compression)
            .baseTimestamp(NOW)
            .maxTimestamp(NOW)
            .add(Record.of(0, "k", "v"))
            .add(Record.of(1, "k", "v").timestampDelta(500))
            .add(Record.of(2, "k", "v").timestampDelta(200))
            .build();

    BatchValidator.Summary summary = validate(records);

    RecordBatch batch = records.firstBatch();
    assertThat(summary.maxTimestamp()).isEqualTo(NOW + 500);
    assertThat(batch.maxTimestamp()).isEqualTo(NOW + 500);
    assertThat(batch.isValid()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aRecordWithoutAKeyOnACompactedTopicIsRefused(CompressionType compression) {
    LogConfig compacted = CONFIG.toBuilder().cleanupPolicy(List.of("compact")).build();
    MemoryRecords records = threeRecords(compression).build();

    assertRefused(
        () -> BatchValidator.validate(records, compacted, AppendOrigin.CLIENT, NOW),
        StorageError.INVALID_RECORD,
        2,
        "has no key");
  }

  @ParameterizedTest
  @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void aBatchInflatingPastTheLimitIsRefusedWithoutAllocatingItsInflatedSize(
      CompressionType compression) {
    // Given: 1 MiB batches may inflate to 2 MiB; the bomb is one record of 16 MiB of zeros.
    LogConfig config =
        CONFIG.toBuilder().maxMessageBytes(1024 * 1024).maxInflatedBytesFactor(2).build();
    long inflated = 16L * 1024 * 1024;
    MemoryRecords bomb =
        RawBatches.batch().compression(compression).baseTimestamp(NOW).zeroRecord(inflated).build();
    assertThat(bomb.sizeInBytes()).isLessThan(1024 * 1024);

    // When: refused by its record length, or (snappy) by its chunk sizes before decompressing
    long before = allocatedBytes();
    assertRefused(
        () -> BatchValidator.validate(bomb, config, AppendOrigin.CLIENT, NOW),
        StorageError.INVALID_RECORD,
        0,
        compression == CompressionType.SNAPPY ? "inflate past" : "is not between");
    long allocated = allocatedBytes() - before;

    // Then: well under the inflated size (the stream's own buffers, the 16 KiB chunk).
    assertThat(allocated).isLessThan(inflated / 4);
  }

  @ParameterizedTest
  @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void manySmallRecordsInflatingPastTheLimitAreRefused(CompressionType compression) {
    // Given: 40,000 records of 100 zero bytes, about 4.4 MiB inflated, past a 2 MiB limit.
    LogConfig config =
        CONFIG.toBuilder().maxMessageBytes(1024 * 1024).maxInflatedBytesFactor(2).build();
    RawBatches.Batch batch = RawBatches.batch().compression(compression).baseTimestamp(NOW);
    for (int i = 0; i < 40_000; i++) {
      batch.add(Record.of(i, null, null).value(new byte[100]));
    }
    MemoryRecords records = batch.build();
    assertThat(records.sizeInBytes()).isLessThan(1024 * 1024);

    // Then
    assertThatThrownBy(() -> BatchValidator.validate(records, config, AppendOrigin.CLIENT, NOW))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.error()).isEqualTo(StorageError.INVALID_RECORD))
        .hasMessageContaining("inflate past 2097152 bytes");
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void aRecordLengthClaimingMoreThanTheLimitIsRefusedBeforeReadingIt(CompressionType compression) {
    // A 30-byte record whose length varint claims 1 GiB.
    MemoryRecords records = batchOf(compression, Record.of(0, "k", "v").lengthDelta(1 << 30));

    long before = allocatedBytes();
    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 0, "its length");
    assertThat(allocatedBytes() - before).isLessThan(8L * 1024 * 1024);
  }

  @Test
  void aProducerMayNotClaimLogAppendTimeOnACreateTimeTopic() {
    MemoryRecords records =
        threeRecords(CompressionType.NONE).timestampType(TimestampType.LOG_APPEND_TIME).build();

    assertThatThrownBy(() -> validate(records))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.error()).isEqualTo(StorageError.INVALID_TIMESTAMP));
  }

  @Test
  void aFollowerAppendChecksTheFramingOnly() {
    // The leader validated its records; a follower that refused its leader's batch could never
    // catch up, so (as Kafka) REPLICATION appends do not walk the records.
    MemoryRecords lying =
        RawBatches.batch().baseTimestamp(NOW).add(Record.of(0, "k", "v")).count(1000).build();

    BatchValidator.Summary summary =
        BatchValidator.validate(lying, CONFIG, AppendOrigin.REPLICATION, NOW);

    assertThat(summary.recordCount()).isEqualTo(1000);
  }

  @Test
  void aVarintLongerThanFiveBytesIsRefused() {
    // Given: a record whose length varint never ends.
    MemoryRecords good = threeRecords(CompressionType.NONE).build();
    ByteBuffer buffer = good.buffer();
    for (int i = 61; i < 66; i++) {
      buffer.put(i, (byte) 0xff);
    }
    RawBatches.fixCrc(buffer, 0);
    MemoryRecords records = MemoryRecords.readableRecords(buffer);

    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 0, "varint");
  }

  @Test
  void aZstdContextReusedAfterAFailedBatchReadsTheNextOneWhole() {
    // The thread's reader keeps its zstd context between batches and only resets its session.
    LogConfig small =
        CONFIG.toBuilder().maxMessageBytes(1024 * 1024).maxInflatedBytesFactor(2).build();
    RawBatches.Batch manyRecords =
        RawBatches.batch().compression(CompressionType.ZSTD).baseTimestamp(NOW);
    for (int i = 0; i < 40_000; i++) {
      manyRecords.add(Record.of(i, null, null).value(new byte[100]));
    }
    MemoryRecords tooBig = manyRecords.build();
    MemoryRecords good = threeRecords(CompressionType.ZSTD).build();

    for (int round = 0; round < 3; round++) {
      assertThatThrownBy(() -> BatchValidator.validate(tooBig, small, AppendOrigin.CLIENT, NOW))
          .isInstanceOf(RecordValidationException.class);
      assertThat(BatchValidator.validate(good, small, AppendOrigin.CLIENT, NOW).recordCount())
          .isEqualTo(3);
    }
  }

  @Test
  void aZstdFrameAskingForAWindowOver8MibIsRefused() throws Exception {
    // Given: the records of a good batch recompressed at zstd's ultra level 22 (a 128 MiB window).
    ByteBuffer plain = threeRecords(CompressionType.NONE).build().buffer();
    java.io.ByteArrayOutputStream zstd = new java.io.ByteArrayOutputStream();
    try (com.github.luben.zstd.ZstdOutputStreamNoFinalizer out =
        new com.github.luben.zstd.ZstdOutputStreamNoFinalizer(zstd, 22)) {
      out.setLong(27);
      out.write(plain.array(), 61, plain.limit() - 61);
    }
    byte[] payload = zstd.toByteArray();
    ByteBuffer batch = ByteBuffer.allocate(61 + payload.length);
    batch.put(plain.array(), 0, 61).put(payload).flip();
    batch.putInt(8, batch.limit() - 12);
    batch.putShort(21, (short) (batch.getShort(21) | CompressionType.ZSTD.id));
    RawBatches.fixCrc(batch, 0);
    MemoryRecords records = MemoryRecords.readableRecords(batch);

    // Then
    assertRefused(() -> validate(records), StorageError.INVALID_RECORD, 0, "window");
  }

  @Test
  void aBatchLengthNear2To31IsACorruptMessage() {
    // Found by BatchValidatorFuzzTest: kafka-clients' batch iterator overflowed adding the log
    // overhead to this length and threw IllegalArgumentException out of the append.
    ByteBuffer buffer = threeRecords(CompressionType.NONE).build().buffer();
    buffer.putInt(8, Integer.MAX_VALUE);
    MemoryRecords records = MemoryRecords.readableRecords(buffer);

    assertThatThrownBy(() -> validate(records))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.error()).isEqualTo(StorageError.CORRUPT_MESSAGE))
        .hasMessageContaining("has length 2147483647");
  }

  private static long allocatedBytes() {
    return ((ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }
}
