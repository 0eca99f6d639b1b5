package io.brook.bench;

import io.brook.storage.index.OffsetIndex;
import io.brook.storage.index.OffsetPosition;
import io.brook.storage.log.LogReadResult;
import io.brook.storage.log.PartitionLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Finding where an offset sits: {@link #indexLookup} is {@link OffsetIndex#lookup} alone on a full
 * default-size index; {@link #logPositioning} is {@link PartitionLog#read}{@code (offset, 1, end,
 * false)} on a pre-filled log, i.e. segment choice, index lookup and the scan of batch headers to
 * the batch holding the offset (what every fetch does before {@code sendfile}). Operations per
 * second are lookups per second.
 *
 * <p>Targets come from a seeded random, precomputed into an array, so the generator is not
 * measured. {@code targets=uniform} draws from the whole index or log (a consumer catching up from
 * anywhere); {@code targets=tail} only from the last 1024 index entries, the warm section {@code
 * AbstractIndex} searches first (a consumer or follower near the log end, the common case).
 */
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class OffsetLookupBenchmark {

  /**
   * Precomputed targets: 65536, a power of two so the next one is an index mask away; 512 KiB of
   * longs, read sequentially, so fetching the target costs far less than the lookup.
   */
  static final int TARGETS = 1 << 16;

  /**
   * Entries of the warm section of {@code AbstractIndex}: its 8 KiB over 8-byte entries. {@code
   * targets=tail} draws from the offsets they cover.
   */
  static final int WARM_ENTRIES = 8 * 1024 / OffsetIndex.ENTRY_SIZE;

  /** A full index of Kafka's default {@code segment.index.bytes}: 10 MiB, 1,310,720 entries. */
  @State(Scope.Thread)
  public static class FullIndex {
    static final int INDEX_BYTES = 10 * 1024 * 1024;

    /**
     * Bytes of log per entry: 1 KiB keeps the last position of a full index (1.34e9) inside the int
     * a position is stored in.
     */
    static final int POSITION_STEP = 1024;

    @Param({"uniform", "tail"})
    public String targets;

    Path dir;
    OffsetIndex index;
    final long[] offsets = new long[TARGETS];
    int next;

    @Setup(Level.Trial)
    public void fill() throws IOException {
      dir = Workload.tempDir();
      index = new OffsetIndex(dir.resolve("00000000000000000000.index"), 0, INDEX_BYTES);
      int entries = index.maxEntries();
      // As the log writes them: each entry is a batch's last offset at the batch's position.
      for (int i = 0; i < entries; i++) {
        index.append((long) (i + 1) * Workload.RECORDS_PER_BATCH - 1, i * POSITION_STEP);
      }
      long end = (long) entries * Workload.RECORDS_PER_BATCH;
      long from =
          targets.equals("tail") ? end - (long) WARM_ENTRIES * Workload.RECORDS_PER_BATCH : 0;
      SplittableRandom random = new SplittableRandom(Workload.SEED);
      for (int i = 0; i < TARGETS; i++) {
        offsets[i] = random.nextLong(from, end);
      }
      System.out.printf("%nindex: %d entries, offsets [0, %d)%n", entries, end);
    }

    @TearDown(Level.Trial)
    public void delete() throws IOException {
      index.deleteIfExists();
      Workload.deleteRecursively(dir);
    }
  }

  /** A log pre-filled with 512 MiB of 16 KiB batches (one index entry per batch). */
  @State(Scope.Thread)
  public static class FilledLog {
    /** Same log as {@link SequentialReadBenchmark}: 512 MiB, in the page cache. */
    static final long LOG_BYTES = 512 * Workload.MIB;

    @Param({"uniform", "tail"})
    public String targets;

    Path dir;
    PartitionLog log;
    long logEndOffset;
    final long[] offsets = new long[TARGETS];
    int next;

    @Setup(Level.Trial)
    public void fill() throws IOException {
      MemoryRecords[] batches = Workload.batches(System.currentTimeMillis());
      dir = Workload.tempDir();
      log = Workload.openFreshLog(dir);
      Workload.prefill(log, batches, LOG_BYTES);
      log.updateHighWatermark(log.logEndOffset());
      logEndOffset = log.logEndOffset();
      OffsetIndex index;
      // The benchmark's log never closes idle files, so the index stays mapped after the pin.
      try (var pinned = log.segments().iterator().next().pin()) {
        index = pinned.offsetIndex();
      }
      long from = 0;
      if (targets.equals("tail")) {
        from = index.entry(Math.max(0, index.entries() - WARM_ENTRIES)).offset();
      }
      SplittableRandom random = new SplittableRandom(Workload.SEED);
      for (int i = 0; i < TARGETS; i++) {
        offsets[i] = random.nextLong(from, logEndOffset);
      }
      System.out.printf(
          "%nlog: offsets [0, %d), %d index entries, targets from %d%n",
          logEndOffset, index.entries(), from);
    }

    @TearDown(Level.Trial)
    public void delete() throws IOException {
      log.delete();
      Workload.deleteRecursively(dir);
    }
  }

  @Benchmark
  public OffsetPosition indexLookup(FullIndex state) {
    return state.index.lookup(state.offsets[state.next++ & (TARGETS - 1)]);
  }

  @Benchmark
  public LogReadResult logPositioning(FilledLog state) {
    long offset = state.offsets[state.next++ & (TARGETS - 1)];
    return state.log.read(offset, 1, state.logEndOffset, false);
  }
}
