package io.brook.bench;

import io.brook.storage.cleaner.Cleaner;
import io.brook.storage.cleaner.CleanerConfig;
import io.brook.storage.cleaner.OffsetMap;
import io.brook.storage.cleaner.Throttler;
import io.brook.storage.log.LogAppendInfo;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
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
 * The log cleaner's throughput, and what a cleaner running flat out does to append latency.
 *
 * <ul>
 *   <li>{@link #cleanPass}: one {@link Cleaner} pass over a freshly written compacted log of {@code
 *       logMiB} MiB (16-record producer batches of 1 KiB values, uncompressed, keys drawn from
 *       {@code keys} distinct keys, so each key has several versions), with Kafka's default 128 MiB
 *       key map and no I/O cap. MB/s of log cleaned = {@code logMiB} MiB / score (printed too).
 *   <li>{@link #appendLatency}: 16 KiB appends to another log, sampled, with {@code cleanerRunning}
 *       a background thread re-cleaning a 256 MiB compacted log from offset 0 over and over (the
 *       worst case: every pass rewrites everything).
 * </ul>
 */
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CleanerBenchmark {
  private static final int SEGMENT_BYTES = 64 * 1024 * 1024;

  /** About 5 versions of each key in 256 MiB of 1 KiB records. */
  private static final int KEYS = 50_000;

  static PartitionLog compactedLog(Path dir) throws IOException {
    return PartitionLog.open(
        dir,
        LogConfig.builder()
            .compacted(true)
            .segmentBytes(SEGMENT_BYTES)
            .fileDeleteDelayMs(0)
            .build(),
        LogOpenOptions.defaults(new TopicPartition("bench-compacted", 0), Time.SYSTEM));
  }

  /** Writes {@code mib} MiB of keyed records and rolls, so all of it is cleanable. */
  static long fillKeyed(PartitionLog log, int mib, int keys) {
    Random random = new Random(Workload.SEED);
    byte[] value = new byte[Workload.VALUE_BYTES];
    long now = System.currentTimeMillis();
    while (log.logEndOffset() == 0 || sizeOf(log) < mib * Workload.MIB) {
      SimpleRecord[] records = new SimpleRecord[Workload.RECORDS_PER_BATCH];
      for (int r = 0; r < records.length; r++) {
        random.nextBytes(value);
        byte[] key = ("key-" + random.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
        records[r] = new SimpleRecord(now, key, value.clone());
      }
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records), 0);
    }
    log.roll();
    log.updateHighWatermark(log.logEndOffset());
    log.flush();
    return sizeOf(log);
  }

  private static long sizeOf(PartitionLog log) {
    return log.segments().stream().mapToLong(s -> s.sizeInBytes()).sum();
  }

  static Cleaner newCleaner(AtomicBoolean stop) {
    CleanerConfig defaults = CleanerConfig.DEFAULTS;
    return new Cleaner(
        new OffsetMap(defaults.dedupeBufferPerThread(), defaults.dedupeBufferLoadFactor()),
        defaults.ioBufferPerThread(),
        new Throttler(defaults.ioMaxBytesPerSecond(), Time.SYSTEM),
        Time.SYSTEM,
        stop::get);
  }

  // ---------------------------------------------------------------------------------------------
  // Throughput of one pass

  /** A freshly written compacted log per iteration. */
  @State(Scope.Thread)
  public static class Dirty {
    /** 256 MiB: four 64 MiB segments, big enough to dwarf per-pass set-up. */
    @Param("256")
    public int logMiB;

    Path dir;
    PartitionLog log;
    long logBytes;
    final AtomicBoolean stop = new AtomicBoolean();

    @Setup(Level.Iteration)
    public void writeLog() throws IOException {
      dir = Workload.tempDir();
      log = compactedLog(dir);
      logBytes = fillKeyed(log, logMiB, KEYS);
    }

    @TearDown(Level.Iteration)
    public void deleteLog() throws IOException {
      log.delete();
      Workload.deleteRecursively(dir);
    }
  }

  /** One pass over the whole log; MB/s = log bytes / score. */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 1)
  @Measurement(iterations = 5)
  public Cleaner.Result cleanPass(Dirty state) throws IOException {
    long started = System.nanoTime();
    Cleaner.Result result = newCleaner(state.stop).clean(state.log, 0);
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.printf(
        "%ncleaned %.1f MB -> %.1f MB in %.2f s: %.1f MB/s of log cleaned%n",
        state.logBytes / 1e6, result.bytesWritten() / 1e6, seconds, state.logBytes / 1e6 / seconds);
    return result;
  }

  // ---------------------------------------------------------------------------------------------
  // Append latency while cleaning

  /** Per-trial state of {@link #appendLatency}: its own log and the background cleaner. */
  @State(Scope.Benchmark)
  public static class Appending {
    @Param({"false", "true"})
    public boolean cleanerRunning;

    Path dir;
    PartitionLog log;
    Path cleanDir;
    PartitionLog cleanLog;
    MemoryRecords[] batches;
    int next;
    Thread background;
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong passes = new AtomicLong();

    @Setup(Level.Trial)
    public void start() throws IOException {
      dir = Workload.tempDir();
      log = Workload.openFreshLog(dir);
      batches = Workload.batches(System.currentTimeMillis());
      if (!cleanerRunning) {
        return;
      }
      cleanDir = Workload.tempDir();
      cleanLog = compactedLog(cleanDir);
      fillKeyed(cleanLog, 256, KEYS);
      Cleaner cleaner = newCleaner(stop);
      background =
          new Thread(
              () -> {
                while (!stop.get()) {
                  try {
                    cleaner.clean(cleanLog, 0);
                    passes.incrementAndGet();
                  } catch (IOException | RuntimeException e) {
                    if (!stop.get()) {
                      throw new IllegalStateException(e);
                    }
                  }
                }
              },
              "bench-cleaner");
      background.setDaemon(true);
      background.start();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
      stop.set(true);
      if (background != null) {
        background.join(60_000);
        System.out.printf("%nbackground cleaner passes: %d%n", passes.get());
        cleanLog.delete();
        Workload.deleteRecursively(cleanDir);
      }
      log.delete();
      Workload.deleteRecursively(dir);
    }
  }

  /** One 16 KiB append, sampled. */
  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Warmup(iterations = 2, time = 1)
  @Measurement(iterations = 5, time = 2)
  public LogAppendInfo appendLatency(Appending state) {
    return state.log.appendAsLeader(
        state.batches[state.next++ & (Workload.DISTINCT_BATCHES - 1)], 0);
  }
}
