package io.brook.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.index.OffsetIndex;
import io.brook.storage.index.OffsetPosition;
import io.brook.storage.log.LogConfig;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.ManualTime;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link BatchPositions} against kafka-clients' {@code FileRecords.searchForOffsetFromPosition},
 * the search it replaces: the same batch for every offset, on logs with every batch indexed, with
 * unindexed batches between entries, and with offset gaps as compaction leaves them.
 */
class BatchPositionsTest {
  private static final long BASE = 1_000;

  @TempDir Path dir;

  private final ManualTime time = new ManualTime();

  /** Appends random batches; returns the offset after the last one. */
  private static long fill(LogSegment segment, Random random, int batches, boolean gaps)
      throws Exception {
    long next = BASE;
    for (int i = 0; i < batches; i++) {
      int count = 1 + random.nextInt(8);
      MemoryRecords batch = Batches.sized(count, 20 + random.nextInt(3_000), 1_000 + i, i);
      long base = next + (gaps && random.nextInt(3) == 0 ? random.nextInt(5) : 0);
      for (MutableRecordBatch b : batch.batches()) {
        b.setLastOffset(base + count - 1);
      }
      segment.append(batch);
      next = base + count;
    }
    return next;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 700, 4_096, 20_000})
  void findsTheSameBatchAsKafkaClientsForEveryOffset(int indexIntervalBytes) throws Exception {
    for (long seed = 1; seed <= 5; seed++) {
      // Given
      Random random = new Random(seed * 31 + indexIntervalBytes);
      LogConfig config = LogConfig.builder().indexIntervalBytes(indexIntervalBytes).build();
      Path segmentDir = dir.resolve(indexIntervalBytes + "-" + seed);
      Files.createDirectories(segmentDir);
      LogSegment segment = LogSegment.create(segmentDir, BASE, config, time);
      long end = fill(segment, random, 60, seed % 2 == 0);

      try (PinnedSegment pinned = segment.pin()) {
        FileRecords records = pinned.records();
        List<Integer> positions = new ArrayList<>();
        for (var batch : records.batches()) {
          positions.add(batch.position());
        }
        for (long target = BASE - 1; target <= end + 1; target++) {
          // When
          FileRecords.LogOffsetPosition found = segment.translateOffset(target, 0);
          int from = positions.get(random.nextInt(positions.size()));
          FileRecords.LogOffsetPosition foundFrom = segment.translateOffset(target, from);

          // Then
          assertSame(found, records.searchForOffsetFromPosition(target, 0), target);
          assertSame(foundFrom, records.searchForOffsetFromPosition(target, from), target);
        }
      }
    }
  }

  @Test
  void bytesThatAreNoBatchHeaderGoToKafkaClientsSearch() throws Exception {
    // Given: a segment whose last bytes are zeros (a length of 0), as a torn write leaves them
    LogConfig config = LogConfig.builder().indexIntervalBytes(1).build();
    LogSegment segment = LogSegment.create(dir, BASE, config, time);
    fill(segment, new Random(7), 5, false);
    int valid = segment.sizeInBytes();
    try (PinnedSegment pinned = segment.pin()) {
      pinned.records().append(MemoryRecords.readableRecords(ByteBuffer.allocate(200)));
      FileRecords records = pinned.records();

      // When / Then: past the valid batches both searches end the same way
      OffsetIndex.Neighbours noEntry =
          new OffsetIndex.Neighbours(new OffsetPosition(BASE, 0), null);
      assertThatThrownBy(() -> records.searchForOffsetFromPosition(Long.MAX_VALUE, valid))
          .isInstanceOf(CorruptRecordException.class);
      assertThatThrownBy(() -> BatchPositions.find(records, noEntry, Long.MAX_VALUE, valid))
          .isInstanceOf(CorruptRecordException.class);
    }
  }

  @Test
  void lookupsOnSeveralThreadsAtOnceFindTheSameBatchesAsKafkaClients() throws Exception {
    // Given: one segment, with unindexed batches, read by four threads at once
    LogConfig config = LogConfig.builder().indexIntervalBytes(4_096).build();
    LogSegment segment = LogSegment.create(dir, BASE, config, time);
    long end = fill(segment, new Random(5), 60, true);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (PinnedSegment pinned = segment.pin()) {
      FileRecords records = pinned.records();
      List<Callable<Void>> readers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        readers.add(
            () -> {
              for (int round = 0; round < 20; round++) {
                for (long target = BASE; target <= end; target++) {
                  // When
                  FileRecords.LogOffsetPosition found = segment.translateOffset(target, 0);

                  // Then
                  assertSame(found, records.searchForOffsetFromPosition(target, 0), target);
                }
              }
              return null;
            });
      }
      for (Future<Void> reader : pool.invokeAll(readers)) {
        reader.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aLookupAllocatesNothingButItsAnswer() throws Exception {
    // Given: lookups through the index entry after the target and walks over unindexed batches
    LogConfig config = LogConfig.builder().indexIntervalBytes(1).build();
    LogSegment segment = LogSegment.create(dir, BASE, config, time);
    fill(segment, new Random(11), 40, false);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
    threads.setThreadAllocatedMemoryEnabled(true);
    try (PinnedSegment pinned = segment.pin()) {
      FileRecords records = pinned.records();
      List<OffsetIndex.Neighbours> neighbours = new ArrayList<>();
      List<Long> targets = new ArrayList<>();
      OffsetPosition previous = new OffsetPosition(BASE, 0);
      for (var batch : records.batches()) {
        OffsetPosition entry = new OffsetPosition(batch.lastOffset(), batch.position());
        neighbours.add(new OffsetIndex.Neighbours(previous, entry)); // the entry's batch
        targets.add(batch.baseOffset());
        neighbours.add(new OffsetIndex.Neighbours(new OffsetPosition(BASE, 0), null)); // a walk
        targets.add(batch.lastOffset());
        previous = entry;
      }
      long positions = lookUpAll(records, neighbours, targets); // the thread's buffer, loaded code

      // When
      int rounds = 200;
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < rounds; i++) {
        positions += lookUpAll(records, neighbours, targets);
      }
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;

      // Then: at most the answer's few bytes per lookup (a heap buffer and a header object per
      // batch visited would be several times that)
      assertThat(positions).isPositive();
      assertThat(allocated / (rounds * (long) targets.size())).isLessThanOrEqualTo(48);
    }
  }

  /** Looks up every target with its neighbours; the sum of the positions found. */
  private static long lookUpAll(
      FileRecords records, List<OffsetIndex.Neighbours> neighbours, List<Long> targets) {
    long sum = 0;
    for (int i = 0; i < targets.size(); i++) {
      sum += BatchPositions.find(records, neighbours.get(i), targets.get(i), 0).position;
    }
    return sum;
  }

  private static void assertSame(
      FileRecords.LogOffsetPosition actual, FileRecords.LogOffsetPosition expected, long target) {
    if (expected == null) {
      assertThat(actual).as("offset %d", target).isNull();
      return;
    }
    assertThat(actual).as("offset %d", target).isNotNull();
    assertThat(actual.position).as("position of offset %d", target).isEqualTo(expected.position);
    assertThat(actual.size).as("size of offset %d", target).isEqualTo(expected.size);
  }
}
