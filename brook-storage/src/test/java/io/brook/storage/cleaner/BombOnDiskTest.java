package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.management.ThreadMXBean;
import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.LogFixture;
import io.brook.storage.testing.LogReads;
import io.brook.storage.testing.RawBatches;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A decompression bomb already on disk (copied by a follower, whose appends check only the framing)
 * must not make the broker allocate its inflated size anywhere: not in the cleaner, not in a time
 * lookup, not in recovery, and a leader append of the same batch is refused. Each step is measured
 * with the thread's allocation counter. Before the bounded reader, the cleaner and the time lookup
 * each allocated the bomb's record (kafka-clients' streaming iterator reads a record into an array
 * of its declared length) and the test failed on the first of them.
 */
class BombOnDiskTest {
  /** 16 MiB of zeros in one record; the log's limit is 1 MiB × 2. */
  private static final long INFLATED = 16L * 1024 * 1024;

  private static final long ALLOWED = INFLATED / 2;

  @TempDir Path root;

  @ParameterizedTest
  @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void cleanerTimeLookupAndRecoverySurviveABombWithoutAllocatingIt(CompressionType compression)
      throws Exception {
    // Given: keys at offsets 0-9, the bomb at 10 (a follower append), newer keys at 11-20.
    LogFixture fixture =
        new LogFixture(root)
            .config(
                LogConfig.builder()
                    .compacted(true)
                    .maxMessageBytes(1024 * 1024)
                    .maxInflatedBytesFactor(2)
                    .segmentBytes(8 * 1024 * 1024)
                    .fileDeleteDelayMs(0)
                    .build());
    PartitionLog log = fixture.open();
    long t0 = fixture.time().milliseconds();
    log.appendAsLeader(KeyedRecords.batch(versions("v1"), t0, CompressionType.NONE), 0);
    log.appendAsFollower(bombAt(compression, 10, t0 + 1000));
    log.appendAsLeader(KeyedRecords.batch(versions("v2"), t0 + 2000, compression), 0);
    log.roll();
    log.updateHighWatermark(log.logEndOffset());
    Cleaner cleaner =
        new Cleaner(
            new OffsetMap(64 * 1024, 0.9),
            16 * 1024,
            new Throttler(Double.MAX_VALUE, fixture.time()),
            fixture.time(),
            () -> false);

    // When: a time lookup that lands on the bomb
    long before = allocatedBytes();
    FileRecords.TimestampAndOffset found =
        log.offsetForTimestamp(t0 + 1000, log.logEndOffset()).orElseThrow();
    long lookup = allocatedBytes() - before;

    // Then: answered with the bomb's offset, without reading it whole
    assertThat(found.offset).isEqualTo(10);
    assertThat(lookup).as("bytes allocated by the time lookup").isLessThan(ALLOWED);

    // When: a cleaning pass over all three batches
    before = allocatedBytes();
    Cleaner.Result result = cleaner.clean(log, 0);
    long cleaning = allocatedBytes() - before;

    // Then: v1 is compacted away, the bomb is kept whole, v2 stays
    assertThat(result.swapped()).isTrue();
    assertThat(cleaning).as("bytes allocated by the cleaner").isLessThan(ALLOWED);
    assertThat(batchesOf(log)).containsExactly("10-10", "11-20");

    // When: the bomb is recovered after a crash
    log.close();
    before = allocatedBytes();
    PartitionLog recovered = fixture.openAfterCrash(0);
    long recovery = allocatedBytes() - before;

    // Then
    assertThat(recovery).as("bytes allocated by recovery").isLessThan(ALLOWED);
    assertThat(recovered.logEndOffset()).isEqualTo(21);

    // When: a producer sends the same bomb
    MemoryRecords produced = bombAt(compression, 0, t0);
    before = allocatedBytes();
    assertThatThrownBy(() -> recovered.appendAsLeader(produced, 0))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.error()).isEqualTo(StorageError.INVALID_RECORD));
    long refusal = allocatedBytes() - before;

    // Then
    assertThat(refusal).as("bytes allocated refusing the bomb").isLessThan(ALLOWED);
    assertThat(recovered.logEndOffset()).isEqualTo(21);
    recovered.close();
  }

  private static List<Map.Entry<String, String>> versions(String version) {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    for (int k = 0; k < 10; k++) {
      out.add(Map.entry("key-" + k, version + "-" + k));
    }
    return out;
  }

  private static MemoryRecords bombAt(CompressionType compression, long offset, long timestamp) {
    MemoryRecords bomb =
        RawBatches.batch()
            .compression(compression)
            .baseTimestamp(timestamp)
            .zeroRecord(INFLATED)
            .build();
    MutableRecordBatch batch = bomb.batches().iterator().next();
    batch.setLastOffset(offset);
    batch.setPartitionLeaderEpoch(0);
    return bomb;
  }

  /** "first-last" offsets of every batch, read from the log's bytes (headers only). */
  private static List<String> batchesOf(PartitionLog log) {
    MemoryRecords all = MemoryRecords.readableRecords(ByteBuffer.wrap(LogReads.bytes(log)));
    List<String> out = new ArrayList<>();
    for (RecordBatch batch : all.batches()) {
      if (batch.countOrNull() != null && batch.countOrNull() > 0) {
        out.add(batch.baseOffset() + "-" + batch.lastOffset());
      }
    }
    return out;
  }

  private static long allocatedBytes() {
    return ((ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }
}
