package io.brook.bench;

import io.brook.storage.log.LogAppendInfo;
import io.brook.storage.log.PartitionLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
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
 * The produce hot path as the broker runs it, {@link PartitionLog#appendAsLeader}: batch validation
 * (header checks, CRC, and the walk over every record) then the write to the page cache. Run with
 * {@code -prof gc} to see allocation per append: uncompressed batches are walked in place, so their
 * validation should allocate nothing; compressed ones pay for one decompression stream per batch.
 *
 * <ul>
 *   <li>{@code shape=16x1024}: 16 records of 1 KiB (Kafka's default 16 KiB {@code batch.size}),
 *       random values, no key.
 *   <li>{@code shape=256x48}: 256 records of 48 B with a 16 B key: the record-count-heavy case,
 *       where a per-record cost shows.
 * </ul>
 *
 * <p>The values are half random, half repeated, so compressed batches shrink about 2x as real data
 * does. Like {@link AppendBenchmark}, each iteration appends to a fresh log (500 ms never fills a 1
 * GiB segment) and the same batches are appended again and again (the leader rewrites only their
 * base offset and epoch, outside the CRC).
 */
@State(Scope.Thread)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ProduceValidationBenchmark {

  @Param({"16x1024", "256x48"})
  public String shape;

  @Param({"none", "lz4", "zstd"})
  public String compression;

  private static final int DISTINCT_BATCHES = 64;

  private MemoryRecords[] batches;
  private int next;
  private Path dir;
  private PartitionLog log;

  @Setup(Level.Trial)
  public void buildBatches() {
    String[] parts = shape.split("x", -1);
    int records = Integer.parseInt(parts[0]);
    int valueBytes = Integer.parseInt(parts[1]);
    boolean keyed = valueBytes < 100;
    Compression codec = Compression.of(CompressionType.forName(compression)).build();
    Random random = new Random(Workload.SEED);
    long now = System.currentTimeMillis();
    batches = new MemoryRecords[DISTINCT_BATCHES];
    for (int b = 0; b < batches.length; b++) {
      SimpleRecord[] batch = new SimpleRecord[records];
      for (int r = 0; r < records; r++) {
        byte[] value = new byte[valueBytes];
        random.nextBytes(value);
        // Second half repeats the first: compressible about 2x, like real payloads.
        System.arraycopy(value, 0, value, valueBytes / 2, valueBytes / 2);
        byte[] key = keyed ? ("key-" + random.nextInt(1_000_000_000) + "xxxxxxx").getBytes() : null;
        batch[r] = new SimpleRecord(now, key, value);
      }
      batches[b] = MemoryRecords.withRecords(codec, batch);
    }
  }

  @Setup(Level.Iteration)
  public void openLog() throws IOException {
    dir = Workload.tempDir();
    log = Workload.openFreshLog(dir);
    next = 0;
  }

  @TearDown(Level.Iteration)
  public void deleteLog() throws IOException {
    log.delete();
    Workload.deleteRecursively(dir);
  }

  /** One producer batch validated and appended; ops/s = batches/s. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Warmup(iterations = 3, time = 500, timeUnit = TimeUnit.MILLISECONDS)
  @Measurement(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
  public LogAppendInfo append() {
    return log.appendAsLeader(batches[next++ & (DISTINCT_BATCHES - 1)], 0);
  }
}
