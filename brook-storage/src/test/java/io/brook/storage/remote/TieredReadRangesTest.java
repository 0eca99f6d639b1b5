package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which byte ranges of a remote segment a read fetches from the store: every byte it sends once,
 * and not much beyond its limit, whatever the batch sizes and wherever the offset index entry lies
 * before the wanted batch. Real log on disk, local-filesystem store.
 */
class TieredReadRangesTest {
  private static final Uuid TOPIC_ID = Uuid.fromString("Ia9tBxWQQjWbsYn0Vw3Tqg");

  /** Batch value sizes, in turn: large, small and middling, so limits fall anywhere. */
  private static final int[] MIXED = {5_000, 300, 1_700, 700, 2_900};

  private static final int LARGEST_BATCH = 5_100;

  @TempDir Path root;

  private final List<byte[]> appended = new ArrayList<>();
  private final List<long[]> fetched = new ArrayList<>();
  private TieredPartition tier;
  private long segmentEnd;

  /**
   * A partition whose first segment (256 KiB) is remote, its offset index with an entry every
   * {@code indexIntervalBytes}, its batches of one record each with values of {@code valueSizes} in
   * turn.
   */
  private void tiered(int indexIntervalBytes, int... valueSizes) throws Exception {
    LogFixture fixture =
        new LogFixture(root.resolve("data"))
            .config(
                LogConfig.builder()
                    .segmentBytes(256 * 1024)
                    .indexIntervalBytes(indexIntervalBytes)
                    .remoteStorageEnable(true)
                    .retentionMs(-1)
                    .localRetentionMs(0)
                    .build());
    PartitionLog log = fixture.open();
    long now = fixture.time().milliseconds();
    while (log.segments().size() < 2) {
      int i = appended.size();
      MemoryRecords batch = Batches.sized(1, valueSizes[i % valueSizes.length], now, i);
      log.appendAsLeader(batch, 0);
      appended.add(Batches.bytes(batch));
    }
    log.updateHighWatermark(log.logEndOffset());
    RemoteSegmentStore counting =
        new ForwardingSegmentStore(new LocalFsSegmentStore(root.resolve("store"))) {
          @Override
          public byte[] fetchLogRange(
              TopicIdPartition tp, RemoteSegment segment, long start, int length)
              throws IOException {
            byte[] bytes = super.fetchLogRange(tp, segment, start, length);
            fetched.add(new long[] {start, start + bytes.length});
            return bytes;
          }
        };
    tier =
        TieredPartition.open(
            counting,
            new RemoteIndexCache(root.resolve("cache"), 1 << 20),
            log,
            TOPIC_ID,
            fixture.time(),
            0,
            () -> true,
            () -> 0L);
    assertThat(tier.copyEligible()).isEqualTo(1);
    segmentEnd = tier.manifest().segments().get(0).nextOffset();
  }

  /** What a read from {@code offset} must send: whole batches within {@code maxBytes}. */
  private byte[] expected(int offset, int maxBytes, boolean minOneBatch) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = offset; i < segmentEnd; i++) {
      byte[] batch = appended.get(i);
      boolean fits = out.size() + batch.length <= maxBytes;
      if (!fits && !(out.size() == 0 && minOneBatch)) {
        break;
      }
      out.writeBytes(batch);
    }
    return out.toByteArray();
  }

  /** Reads, checks the answer and the ranges fetched; returns the bytes fetched. */
  private long read(int offset, int maxBytes, boolean minOneBatch) throws IOException {
    fetched.clear();
    MemoryRecords read = tier.read(offset, maxBytes, Long.MAX_VALUE, minOneBatch);
    assertThat(Batches.bytes(read))
        .as("offset %d, limit %d", offset, maxBytes)
        .isEqualTo(expected(offset, maxBytes, minOneBatch));
    long total = 0;
    for (int i = 0; i < fetched.size(); i++) {
      for (int j = i + 1; j < fetched.size(); j++) {
        long[] a = fetched.get(i);
        long[] b = fetched.get(j);
        long overlap = Math.min(a[1], b[1]) - Math.max(a[0], b[0]);
        // At most a batch header cut by a range's end, while walking to the wanted batch.
        assertThat(overlap)
            .as(
                "offset %d, limit %d: ranges %d-%d and %d-%d",
                offset, maxBytes, a[0], a[1], b[0], b[1])
            .isLessThan(RemoteBatchCursor.HEADER_SIZE);
      }
      total += fetched.get(i)[1] - fetched.get(i)[0];
    }
    return total;
  }

  @Test
  void aReadFetchesOneRangeWhenTheIndexEntryIsNearTheWantedBatch() throws Exception {
    tiered(4096, MIXED);
    for (int offset = 0; offset < segmentEnd; offset += 7) {
      for (int maxBytes : new int[] {70_000, 100_000, 140_001}) {
        long bytes = read(offset, maxBytes, true);
        assertThat(fetched).as("offset %d, limit %d", offset, maxBytes).hasSize(1);
        assertThat(bytes).isLessThanOrEqualTo(maxBytes + 16 * 1024 + 4096 + LARGEST_BATCH);
      }
    }
  }

  @Test
  void aFarIndexEntryCostsOneMoreRangeButNoByteTwice() throws Exception {
    // Given: index entries 64 KiB apart, so the wanted batch may start far past the entry found
    tiered(64 * 1024, MIXED);
    for (int offset = 0; offset < segmentEnd; offset += 5) {
      for (int maxBytes : new int[] {70_000, 100_000}) {
        long bytes = read(offset, maxBytes, true);
        assertThat(fetched).as("offset %d, limit %d", offset, maxBytes).hasSizeLessThanOrEqualTo(2);
        assertThat(bytes).isLessThanOrEqualTo(maxBytes + 64 * 1024 + 16 * 1024 + LARGEST_BATCH);
      }
    }
  }

  @Test
  void aFirstBatchLargerThanTheFirstRangeIsCompletedNotFetchedAgain() throws Exception {
    // Given: 100 KB batches, more than the 64 KiB a small read fetches first
    tiered(4096, 100_000);
    for (int offset = 0; offset < segmentEnd; offset++) {
      // When: a read with a 1 KB limit for the fetch's first partition (sent whole, KIP-74)
      long bytes = read(offset, 1_000, true);

      // Then: the rest of the batch is fetched on, once
      assertThat(fetched).hasSize(2);
      assertThat(bytes).isEqualTo(appended.get(offset).length);
    }
    // Not the first partition: nothing sent, and only the first range fetched
    assertThat(read(0, 1_000, false)).isEqualTo(64 * 1024);
  }

  @Test
  void aSequentialReaderIsServedFromBytesReadAheadAndNoByteIsFetchedTwice() throws Exception {
    tiered(4096, MIXED);
    RemoteReadAhead ahead = new RemoteReadAhead(64 * 1024, 1 << 20, 16);
    tier.readAhead(ahead);
    List<long[]> all = new ArrayList<>();
    int reads = 0;
    long offset = 0;
    while (offset < segmentEnd) {
      fetched.clear();
      MemoryRecords read = tier.read(offset, 20_000, Long.MAX_VALUE, true);
      byte[] bytes = Batches.bytes(read);
      assertThat(bytes).as("offset %d", offset).isEqualTo(expected((int) offset, 20_000, true));
      all.addAll(fetched);
      reads++;
      long next = offset;
      for (RecordBatch b : read.batches()) {
        next = b.lastOffset() + 1;
      }
      offset = next;
    }
    long segmentBytes = tier.manifest().segments().get(0).sizeInBytes();
    long total = 0;
    for (int i = 0; i < all.size(); i++) {
      for (int j = i + 1; j < all.size(); j++) {
        long overlap =
            Math.min(all.get(i)[1], all.get(j)[1]) - Math.max(all.get(i)[0], all.get(j)[0]);
        assertThat(overlap).as("ranges %d and %d", i, j).isLessThan(RemoteBatchCursor.HEADER_SIZE);
      }
      total += all.get(i)[1] - all.get(i)[0];
    }
    // Every byte of the segment fetched about once, in ranges of the read-ahead's size: far fewer
    // requests than reads.
    assertThat(total).isBetween(segmentBytes - 4096, segmentBytes + 16 * 1024);
    assertThat(all.size()).isLessThanOrEqualTo((int) (segmentBytes / (64 * 1024)) + 2);
    assertThat(reads).isGreaterThan(3 * all.size());
    assertThat(ahead.heldBytes()).isZero(); // the last read reached the segment's end
  }

  /**
   * Reads the remote segment from its first offset to its end, each read continuing the last one,
   * checking every answer; returns the ranges fetched and, last, {reads, 0}.
   */
  private List<long[]> replay(int maxBytes) throws IOException {
    List<long[]> all = new ArrayList<>();
    int reads = 0;
    long offset = 0;
    while (offset < segmentEnd) {
      fetched.clear();
      MemoryRecords read = tier.read(offset, maxBytes, Long.MAX_VALUE, true);
      assertThat(Batches.bytes(read))
          .as("offset %d", offset)
          .isEqualTo(expected((int) offset, maxBytes, true));
      all.addAll(fetched);
      reads++;
      for (RecordBatch b : read.batches()) {
        offset = b.lastOffset() + 1;
      }
    }
    all.add(new long[] {reads, 0});
    return all;
  }

  @Test
  void withTheChunkCacheEachChunkIsFetchedOnceAndASecondReplayFetchesNothing() throws Exception {
    tiered(4096, MIXED);
    int chunkBytes = 64 * 1024;
    tier.chunkCache(new RemoteChunkCache(root.resolve("chunks"), chunkBytes, 1 << 20));
    // Ignored: the chunk cache takes the read-ahead's place.
    tier.readAhead(new RemoteReadAhead(64 * 1024, 1 << 20, 16));
    long segmentBytes = tier.manifest().segments().get(0).sizeInBytes();
    int chunks = (int) ((segmentBytes + chunkBytes - 1) / chunkBytes);

    // When: a consumer replays the segment
    List<long[]> first = replay(20_000);
    long reads = first.remove(first.size() - 1)[0];

    // Then: one GET per chunk, aligned, none fetched twice; far fewer GETs than reads
    assertThat(first).hasSize(chunks);
    for (long[] range : first) {
      assertThat(range[0] % chunkBytes).isZero();
      assertThat(range[1]).isEqualTo(Math.min(range[0] + chunkBytes, segmentBytes));
    }
    assertThat(first.stream().map(r -> r[0]).distinct().count()).isEqualTo(chunks);
    assertThat(reads).isGreaterThanOrEqualTo(2L * chunks);

    // And: a second consumer's replay, and reads from anywhere (seeks), fetch nothing
    List<long[]> second = replay(20_000);
    assertThat(second).hasSize(1);
    for (int offset = 3; offset < segmentEnd; offset += 11) {
      read(offset, 20_000, true);
      assertThat(fetched).as("offset %d", offset).isEmpty();
    }
  }

  @Test
  void aRemoteSegmentDeletedBelowTheLogStartLeavesNoChunkBehind() throws Exception {
    tiered(4096, MIXED);
    Path dir = root.resolve("chunks");
    tier.chunkCache(new RemoteChunkCache(dir, 64 * 1024, 1 << 20));
    read(0, 100_000, true);
    assertThat(filesIn(dir)).isNotEmpty();

    // When: DeleteRecords moves the log start past the segment, and expiry deletes it
    tier.moveLogStart(segmentEnd);
    assertThat(tier.expire()).isEqualTo(1);

    // Then: its chunks are gone from local disk
    assertThat(filesIn(dir)).isEmpty();
  }

  private static List<Path> filesIn(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }

  @Test
  void aReadFromElsewhereAnswersFromItsOwnRange() throws Exception {
    tiered(4096, MIXED);
    RemoteReadAhead ahead = new RemoteReadAhead(64 * 1024, 1 << 20, 16);
    tier.readAhead(ahead);
    // Given: a read, and the one continuing it, which reads ahead and leaves bytes behind
    long next = 0;
    for (RecordBatch b : tier.read(0, 20_000, Long.MAX_VALUE, true).batches()) {
      next = b.lastOffset() + 1;
    }
    tier.read(next, 20_000, Long.MAX_VALUE, true);
    assertThat(ahead.heldBytes()).isPositive();

    // When / Then: reads of other offsets (a seek, another consumer) answer right, each fetching
    // its own range once
    for (int offset = 3; offset < segmentEnd; offset += 11) {
      read(offset, 20_000, true);
    }
  }
}
