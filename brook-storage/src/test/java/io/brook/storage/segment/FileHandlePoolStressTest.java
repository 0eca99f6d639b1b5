package io.brook.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.ManualTime;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One appender and several readers over more segments than the pool holds, so nearly every use
 * evicts another file, while the appender also renames segments back and forth: no read may ever
 * meet a closed channel or different bytes. Seeded; set {@code -Dbrook.test.seed=N} to replay a
 * run.
 */
class FileHandlePoolStressTest {
  private static final int SEGMENTS = 12;
  private static final int MAX_OPEN = 3;
  private static final int APPENDS = 3_000;
  private static final int READERS = 3;

  @TempDir Path dir;

  @Test
  void readersAndAnAppenderRacingEvictionsAlwaysSeeTheBytesThatWereWritten() throws Exception {
    // Given
    long seed = Long.getLong("brook.test.seed", 20_261_129L);
    FileHandlePool pool = new FileHandlePool(MAX_OPEN);
    LogConfig config =
        LogConfig.builder().segmentIndexBytes(64 * 1024).indexIntervalBytes(512).build();
    List<LogSegment> segments = new ArrayList<>();
    for (int i = 0; i < SEGMENTS; i++) {
      segments.add(
          LogSegment.create(
              Files.createDirectories(dir.resolve("p" + i)), 0, config, new ManualTime(), pool));
    }
    AtomicLongArray published = new AtomicLongArray(SEGMENTS);
    Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<Thread> readers = new ArrayList<>();
    Thread appender =
        new Thread(() -> append(segments, published, new SplittableRandom(seed), failures));

    // When
    for (int r = 0; r < READERS; r++) {
      SplittableRandom random = new SplittableRandom(seed + 1 + r);
      readers.add(new Thread(() -> read(segments, published, random, appender, failures)));
    }
    appender.start();
    readers.forEach(Thread::start);
    appender.join(20_000);
    for (Thread reader : readers) {
      reader.join(20_000);
    }

    // Then
    assertThat(failures).as("seed " + seed).isEmpty();
    assertThat(appender.isAlive()).isFalse();
    assertThat(pool.evictions()).isGreaterThan(100);
    assertThat(pool.openFiles()).isLessThanOrEqualTo(MAX_OPEN);
    for (int i = 0; i < SEGMENTS; i++) {
      assertThat(segments.get(i).readNextOffset()).isEqualTo(published.get(i));
    }
  }

  private static void append(
      List<LogSegment> segments,
      AtomicLongArray published,
      SplittableRandom random,
      Queue<Throwable> failures) {
    try {
      for (int i = 0; i < APPENDS; i++) {
        int k = random.nextInt(SEGMENTS);
        long offset = published.get(k);
        LogSegment segment = segments.get(k);
        segment.append(FileHandlePoolTest.batchAt(offset, "p" + k));
        published.set(k, offset + 1); // after the segment published its size
        if (random.nextInt(50) == 0) {
          // As retention or the cleaner would, under readers: reopens must follow the new name.
          segment.changeFileSuffixes("", SegmentFiles.DELETED_SUFFIX);
          segment.changeFileSuffixes(SegmentFiles.DELETED_SUFFIX, "");
        }
      }
    } catch (Throwable t) {
      failures.add(t);
    }
  }

  private static void read(
      List<LogSegment> segments,
      AtomicLongArray published,
      SplittableRandom random,
      Thread appender,
      Queue<Throwable> failures) {
    try {
      while (appender.isAlive() && failures.isEmpty()) {
        int k = random.nextInt(SEGMENTS);
        long end = published.get(k);
        if (end == 0) {
          continue;
        }
        LogSegment segment = segments.get(k);
        long offset = random.nextLong(end);
        FileSlice slice = segment.read(offset, 4096, segment.sizeInBytes(), true);
        slice.pin();
        ByteBuffer bytes = ByteBuffer.allocate(slice.sizeInBytes());
        try {
          if (random.nextInt(4) == 0) {
            Thread.yield(); // hold the pin while others evict
          }
          while (bytes.hasRemaining()) {
            if (slice.channel().read(bytes, slice.position() + bytes.position()) < 0) {
              throw new AssertionError("file ended early");
            }
          }
        } finally {
          slice.unpin();
        }
        check(MemoryRecords.readableRecords(bytes.flip()), offset, "p" + k);
      }
    } catch (Throwable t) {
      failures.add(t);
    }
  }

  /** Every whole batch in the slice is, byte for byte, the one appended at its offset. */
  private static void check(MemoryRecords read, long firstOffset, String name) {
    long expected = firstOffset;
    int position = 0;
    for (RecordBatch batch : read.batches()) {
      assertThat(batch.baseOffset()).isEqualTo(expected);
      byte[] got = new byte[batch.sizeInBytes()];
      read.buffer().duplicate().position(position).get(got);
      assertThat(got).isEqualTo(Batches.bytes(FileHandlePoolTest.batchAt(expected, name)));
      position += batch.sizeInBytes();
      expected++;
    }
    assertThat(expected).as("at least the first batch").isGreaterThan(firstOffset);
  }
}
