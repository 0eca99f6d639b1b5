package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chunk cache in front of a real local-filesystem store holding a segment's log of random
 * bytes: what it answers (byte for byte the segment), which GETs the store sees, what it keeps on
 * disk (within its bound, least recently used out first, nothing for a deleted segment or a failed
 * GET).
 */
class RemoteChunkCacheTest {
  private static final TopicIdPartition TP =
      new TopicIdPartition(Uuid.fromString("Ia9tBxWQQjWbsYn0Vw3Tqg"), 0, "t");
  private static final int CHUNK = 1_000;
  private static final int SIZE = 10_500;

  @TempDir Path root;

  /** Ranged GETs the store answered or was asked for: {start, length}. */
  private final List<long[]> fetched = new ArrayList<>();

  /** When set, the next GET waits for {@code release} (after counting down {@code entered}). */
  private volatile CountDownLatch holdNext;

  private final CountDownLatch entered = new CountDownLatch(1);

  /** When set, the next GET fails with it (after {@code holdNext}, if set too). */
  private final AtomicReference<IOException> failNext = new AtomicReference<>();

  private RemoteSegmentStore store;
  private byte[] log;
  private RemoteSegment segment;
  private Path cacheDir;

  @BeforeEach
  void aSegmentInTheStore() throws Exception {
    store =
        new ForwardingSegmentStore(new LocalFsSegmentStore(root.resolve("store"))) {
          @Override
          public byte[] fetchLogRange(
              TopicIdPartition tp, RemoteSegment segment, long start, int length)
              throws IOException {
            synchronized (fetched) {
              fetched.add(new long[] {start, length});
            }
            CountDownLatch hold = holdNext;
            if (hold != null) {
              holdNext = null;
              entered.countDown();
              try {
                hold.await(60, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                throw new IOException(e);
              }
            }
            IOException failure = failNext.getAndSet(null);
            if (failure != null) {
              throw failure;
            }
            return super.fetchLogRange(tp, segment, start, length);
          }
        };
    log = new byte[SIZE];
    new Random(42).nextBytes(log);
    segment = upload("segment-a", log);
    cacheDir = root.resolve("chunks");
  }

  private RemoteSegment upload(String id, byte[] bytes) throws IOException {
    RemoteSegment s =
        new RemoteSegment(id, 0, 99, -1, bytes.length, RemoteSegmentState.COPY_SEGMENT_FINISHED);
    Path file = root.resolve(id + ".log");
    Files.write(file, bytes);
    store.copySegment(
        TP,
        s,
        new LocalSegmentFiles(
            file, new byte[0], new byte[0], Optional.empty(), Optional.empty(), new byte[0]));
    return s;
  }

  private List<long[]> fetches() {
    synchronized (fetched) {
      return List.copyOf(fetched);
    }
  }

  private long bytesOnDisk() throws IOException {
    try (Stream<Path> files = Files.list(cacheDir)) {
      long total = 0;
      for (Path p : (Iterable<Path>) files::iterator) {
        total += Files.size(p);
      }
      return total;
    }
  }

  private List<Path> filesOnDisk() throws IOException {
    try (Stream<Path> files = Files.list(cacheDir)) {
      return files.toList();
    }
  }

  private byte[] expected(long start, int length) {
    if (start >= SIZE) {
      return new byte[0];
    }
    return Arrays.copyOfRange(log, (int) start, (int) Math.min(start + length, SIZE));
  }

  @Test
  void readsAcrossChunkBoundariesAreTheSegmentByteForByteAndEachChunkIsFetchedOnce()
      throws Exception {
    RemoteChunkCache cache = new RemoteChunkCache(cacheDir, CHUNK, 1 << 20);
    long[][] ranges = {
      {0, 1},
      {0, CHUNK},
      {999, 2},
      {1_500, 3_000},
      {4_999, 1},
      {5_000, 0},
      {9_999, 600},
      {10_400, 5_000},
      {SIZE, 10},
      {SIZE + 5, 10},
      {3, SIZE},
      {0, SIZE + 100}
    };
    for (long[] r : ranges) {
      assertThat(cache.read(store, TP, segment, r[0], (int) r[1]))
          .as("bytes %d+%d", r[0], r[1])
          .isEqualTo(expected(r[0], (int) r[1]));
    }
    Random random = new Random(7);
    for (int i = 0; i < 200; i++) {
      long start = random.nextInt(SIZE + 10);
      int length = random.nextInt(3 * CHUNK);
      assertThat(cache.read(store, TP, segment, start, length))
          .as("bytes %d+%d", start, length)
          .isEqualTo(expected(start, length));
    }

    // Every GET is one whole chunk, aligned, and none is fetched twice.
    List<long[]> gets = fetches();
    assertThat(gets).hasSize(11);
    for (long[] get : gets) {
      assertThat(get[0] % CHUNK).isZero();
      assertThat(get[1]).isEqualTo(Math.min(CHUNK, SIZE - get[0]));
    }
    assertThat(gets.stream().map(g -> g[0]).distinct().count()).isEqualTo(11);
    assertThat(bytesOnDisk()).isEqualTo(SIZE);
  }

  @Test
  void aReReadIsServedWithoutTheStore() throws Exception {
    RemoteChunkCache cache = new RemoteChunkCache(cacheDir, CHUNK, 1 << 20);
    assertThat(cache.read(store, TP, segment, 700, 2_600)).isEqualTo(expected(700, 2_600));
    assertThat(fetches()).hasSize(4);
    fetched.clear();

    assertThat(cache.read(store, TP, segment, 700, 2_600)).isEqualTo(expected(700, 2_600));
    assertThat(cache.read(store, TP, segment, 0, 4_000)).isEqualTo(expected(0, 4_000));
    assertThat(cache.read(store, TP, segment, 3_999, 1)).isEqualTo(expected(3_999, 1));

    assertThat(fetches()).isEmpty();
    RemoteLogManager.ChunkCacheStats stats = cache.stats();
    assertThat(stats.misses()).isEqualTo(4);
    assertThat(stats.fetchedBytes()).isEqualTo(4 * CHUNK);
    assertThat(stats.hits()).isEqualTo(4 + 4 + 1);
    assertThat(stats.cachedBytes()).isEqualTo(4 * CHUNK);
  }

  @Test
  void twoReadersOfTheSameRangeShareEachChunksFetch() throws Exception {
    RemoteChunkCache cache = new RemoteChunkCache(cacheDir, CHUNK, 1 << 20);
    CountDownLatch release = new CountDownLatch(1);
    holdNext = release;
    AtomicReference<byte[]> first = new AtomicReference<>();
    AtomicReference<byte[]> second = new AtomicReference<>();
    List<Throwable> failures = new ArrayList<>();

    // Given: a reader whose GET of the first chunk is held in the store
    Thread a = reader(cache, first, failures);
    a.start();
    assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();

    // When: another reader asks for the same bytes meanwhile, and waits
    Thread b = reader(cache, second, failures);
    b.start();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> b.getState() == Thread.State.WAITING || !b.isAlive());
    release.countDown();
    a.join(60_000);
    b.join(60_000);

    // Then: both answered the segment's bytes, and the store saw each chunk asked for once
    assertThat(failures).isEmpty();
    assertThat(first.get()).isEqualTo(expected(500, 3_000));
    assertThat(second.get()).isEqualTo(expected(500, 3_000));
    List<long[]> gets = fetches();
    assertThat(gets.stream().map(g -> g[0]).toList())
        .containsExactlyInAnyOrder(0L, 1_000L, 2_000L, 3_000L);
  }

  private Thread reader(
      RemoteChunkCache cache, AtomicReference<byte[]> into, List<Throwable> failures) {
    return new Thread(
        () -> {
          try {
            into.set(cache.read(store, TP, segment, 500, 3_000));
          } catch (Throwable e) {
            synchronized (failures) {
              failures.add(e);
            }
          }
        });
  }

  @Test
  void readersWaitingForAFailedFetchGetItsErrorAndNothingIsKept() throws Exception {
    RemoteChunkCache cache = new RemoteChunkCache(cacheDir, CHUNK, 1 << 20);
    CountDownLatch release = new CountDownLatch(1);
    holdNext = release;
    failNext.set(new IOException("the store is unreachable"));
    List<Throwable> failures = new ArrayList<>();
    Thread a = reader(cache, new AtomicReference<>(), failures);
    a.start();
    assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();
    Thread b = reader(cache, new AtomicReference<>(), failures);
    b.start();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> b.getState() == Thread.State.WAITING || !b.isAlive());
    release.countDown();
    a.join(60_000);
    b.join(60_000);

    assertThat(failures).hasSize(2);
    assertThat(failures)
        .allSatisfy(
            e ->
                assertThat(e)
                    .isInstanceOf(IOException.class)
                    .hasMessage("the store is unreachable"));
    assertThat(fetches()).hasSize(1);
    assertThat(filesOnDisk()).isEmpty();
    assertThat(cache.chunkCount()).isZero();
  }

  @Test
  void aFailedFetchLeavesNoFileTheErrorSurfacesAndIsNotCached() throws Exception {
    RemoteChunkCache cache = new RemoteChunkCache(cacheDir, CHUNK, 1 << 20);
    failNext.set(new IOException("the store is unreachable"));

    assertThatThrownBy(() -> cache.read(store, TP, segment, 0, 100))
        .isInstanceOf(IOException.class)
        .hasMessage("the store is unreachable");
    assertThat(filesOnDisk()).isEmpty();
    assertThat(cache.stats().cachedBytes()).isZero();

    // The next read asks the store again, and is answered.
    assertThat(cache.read(store, TP, segment, 0, 100)).isEqualTo(expected(0, 100));
    assertThat(fetches()).hasSize(2);

    // A segment that is not in the store is reported as the store reports it, every time.
    RemoteSegment missing =
        new RemoteSegment("not-there", 0, 9, -1, 5_000, RemoteSegmentState.COPY_SEGMENT_FINISHED);
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> cache.read(store, TP, missing, 0, 100))
          .isInstanceOf(NoSuchFileException.class);
    }
    assertThat(fetches()).hasSize(4);
    assertThat(filesOnDisk()).hasSize(1);
  }

  @Test
  void evictionKeepsTheBytesOnDiskWithinTheBoundLeastRecentlyUsedFirst() throws Exception {
    RemoteChunkCache cache = new RemoteChunkCache(cacheDir, CHUNK, 3 * CHUNK);
    for (int chunk = 0; chunk < 3; chunk++) {
      cache.read(store, TP, segment, chunk * CHUNK, CHUNK);
    }
    cache.read(store, TP, segment, 0, 10); // chunk 0 used again: chunk 1 is now the oldest
    assertThat(bytesOnDisk()).isEqualTo(3 * CHUNK);

    // When: a fourth chunk is read
    assertThat(cache.read(store, TP, segment, 3 * CHUNK + 10, 20))
        .isEqualTo(expected(3 * CHUNK + 10, 20));

    // Then: chunk 1 went; 0, 2 and 3 are served from disk
    assertThat(bytesOnDisk()).isEqualTo(3 * CHUNK);
    assertThat(cache.stats().cachedBytes()).isEqualTo(3 * CHUNK);
    fetched.clear();
    cache.read(store, TP, segment, 0, CHUNK);
    cache.read(store, TP, segment, 2 * CHUNK, 2 * CHUNK);
    assertThat(fetches()).isEmpty();
    assertThat(cache.read(store, TP, segment, CHUNK, CHUNK)).isEqualTo(expected(CHUNK, CHUNK));
    assertThat(fetches()).hasSize(1).allSatisfy(g -> assertThat(g[0]).isEqualTo(CHUNK));

    // A whole replay through the small cache stays within the bound at every step.
    for (int start = 0; start < SIZE; start += 300) {
      assertThat(cache.read(store, TP, segment, start, 700)).isEqualTo(expected(start, 700));
      assertThat(bytesOnDisk()).isLessThanOrEqualTo(3 * CHUNK);
    }
    assertThat(cache.chunkCount()).isEqualTo(3);
  }

  @Test
  void aDeletedSegmentsChunksAreGoneAtOnce() throws Exception {
    RemoteChunkCache cache = new RemoteChunkCache(cacheDir, CHUNK, 1 << 20);
    byte[] other = new byte[2_500];
    new Random(3).nextBytes(other);
    RemoteSegment otherSegment = upload("segment-b", other);
    cache.read(store, TP, segment, 0, SIZE);
    cache.read(store, TP, otherSegment, 0, other.length);
    assertThat(bytesOnDisk()).isEqualTo(SIZE + other.length);

    cache.remove(segment);

    assertThat(bytesOnDisk()).isEqualTo(other.length);
    assertThat(cache.stats().cachedBytes()).isEqualTo(other.length);
    assertThat(cache.chunkCount()).isEqualTo(3);
    fetched.clear();
    assertThat(cache.read(store, TP, otherSegment, 0, other.length)).isEqualTo(other);
    assertThat(fetches()).isEmpty();
  }

  @Test
  void aChunkShorterThanTheManifestSaysIsAnsweredShortAndNotKept() throws Exception {
    RemoteChunkCache cache = new RemoteChunkCache(cacheDir, CHUNK, 1 << 20);
    RemoteSegment claimsMore =
        new RemoteSegment(
            segment.id(), 0, 99, -1, SIZE + 700, RemoteSegmentState.COPY_SEGMENT_FINISHED);

    assertThat(cache.read(store, TP, claimsMore, 10_000, 1_000)).isEqualTo(expected(10_000, 500));
    assertThat(filesOnDisk()).isEmpty();
  }

  @Test
  void whatAnEarlierRunLeftIsDeletedAtStart() throws Exception {
    Files.createDirectories(cacheDir);
    Files.write(cacheDir.resolve("0.chunk"), new byte[CHUNK]);
    Files.write(cacheDir.resolve("1.chunk.tmp"), new byte[10]);

    RemoteChunkCache cache = new RemoteChunkCache(cacheDir, CHUNK, 1 << 20);

    assertThat(filesOnDisk()).isEmpty();
    assertThat(cache.read(store, TP, segment, 0, 50)).isEqualTo(expected(0, 50));
  }

  @Test
  void aChunkLargerThanTheCacheIsRefused() {
    assertThatThrownBy(() -> new RemoteChunkCache(cacheDir, 2_000, 1_000))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RemoteChunkCache(cacheDir, 0, 1_000))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
