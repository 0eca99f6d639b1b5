package io.brook.bench;

import io.brook.storage.log.LogAppendInfo;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Time;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Appends 16 KiB producer batches (16 records of 1 KiB, uncompressed) to a {@link PartitionLog}
 * with Kafka's default config (1 GiB segments, no fsync on the append path) in a fresh directory
 * under /tmp. Every iteration starts from an empty log and deletes it afterwards, so the disk never
 * fills, and with the default {@code appendMiB} no iteration rolls a segment. A larger shot ({@code
 * -p appendMiB=4096}, the size of the {@code dd} the append is compared with) rolls: as in the
 * broker, each roll flushes the finished segment on a disk thread of its own while the appends go
 * on.
 *
 * <ul>
 *   <li>{@link #append}: steady-state page-cache appends, one batch per operation. The {@code
 *       megabytes} counter is the same rate in MB/s (10^6 bytes) of log written.
 *   <li>{@link #appendNoFlush}: one shot of {@code appendMiB} MiB into the page cache.
 *   <li>{@link #appendThenFlush}: the same, then one {@link PartitionLog#flush()} (fsync of the log
 *       and both indexes) and the end of every roll's flush, all inside the timed region: the
 *       honest comparison with {@code dd conv=fdatasync}. MB/s = bytes appended / score.
 * </ul>
 *
 * <p>{@code appendAsLeader} rewrites a batch's base offset and leader epoch in place (outside the
 * CRC), so the same {@link MemoryRecords} objects are appended again and again; the loop allocates
 * nothing besides what the log itself does.
 */
@State(Scope.Thread)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class AppendBenchmark {

  /**
   * Bytes per one-shot run: 1 GiB, one default segment ({@code segment.bytes}), the most that fits
   * without a roll; also about a tenth of the page cache here, so it stays under the kernel's
   * dirty-background threshold (10% of memory) and writeback does not start before the flush.
   */
  @Param("1024")
  public int appendMiB;

  /**
   * Length of an {@link #append} iteration: 500 ms, so that even at 2 GB/s (beyond the fastest
   * page-cache write seen here) an iteration stays inside one 1 GiB segment and never pays a roll's
   * fsync; the log is recreated between iterations.
   */
  static final int ITERATION_MS = 500;

  private MemoryRecords[] batches;
  private int batchBytes;
  private int batchesPerShot;
  private int next;
  private Path dir;
  private PartitionLog log;

  /** The broker's disk pool in small: where a roll flushes the segment it finished. */
  private ExecutorService disk;

  /** Bytes appended, reported by JMH as a rate: MB/s of log written. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Written {
    public double megabytes;

    @Setup(Level.Iteration)
    public void reset() {
      megabytes = 0;
    }
  }

  @Setup(Level.Trial)
  public void buildBatches() {
    batches = Workload.batches(System.currentTimeMillis());
    batchBytes = Workload.batchBytes(batches);
    batchesPerShot = (int) (appendMiB * Workload.MIB / batchBytes);
    System.out.printf(
        "%nbatch: %d records x %d B values = %d B on disk; one shot = %d batches = %d B%n",
        Workload.RECORDS_PER_BATCH,
        Workload.VALUE_BYTES,
        batchBytes,
        batchesPerShot,
        (long) batchesPerShot * batchBytes);
  }

  @Setup(Level.Iteration)
  public void openLog() throws IOException {
    dir = Workload.tempDir();
    disk = Executors.newSingleThreadExecutor();
    log =
        PartitionLog.open(
            dir,
            LogConfig.defaults(),
            LogOpenOptions.defaults(new TopicPartition("bench", 0), Time.SYSTEM)
                .withBackground(disk));
    next = 0;
  }

  /**
   * Deletes the log without the fsync that {@code close()} would do: nothing is left to write back
   * into the next iteration.
   */
  @TearDown(Level.Iteration)
  public void deleteLog() throws IOException, InterruptedException {
    int segments = log.segments().size();
    // Queued roll flushes finish first, uninterrupted: an interrupt would close the file channel
    // under an fsync and take the log's directory offline.
    disk.shutdown();
    if (!disk.awaitTermination(5, TimeUnit.MINUTES)) {
      throw new IOException("the rolls' flushes did not finish within five minutes");
    }
    log.delete();
    Workload.deleteRecursively(dir);
    if (segments > 1 && appendMiB <= 1024) {
      System.out.printf(
          "%nWARNING: the log rolled (%d segments): the iteration included a roll's fsync%n",
          segments);
    }
  }

  /** One batch; ops/s = batches/s, {@code megabytes} = MB/s. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Warmup(iterations = 2, time = ITERATION_MS, timeUnit = TimeUnit.MILLISECONDS)
  @Measurement(iterations = 5, time = ITERATION_MS, timeUnit = TimeUnit.MILLISECONDS)
  public LogAppendInfo append(Written written) {
    MemoryRecords batch = batches[next++ & (Workload.DISTINCT_BATCHES - 1)];
    written.megabytes += batchBytes / 1e6;
    return log.appendAsLeader(batch, 0);
  }

  /** {@code appendMiB} MiB into the page cache; MB/s = bytes of the shot / score. */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 2)
  @Measurement(iterations = 5)
  public long appendNoFlush() {
    appendShot();
    return log.logEndOffset();
  }

  /** {@code appendMiB} MiB, then one fsync; MB/s = bytes of the shot / score. */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 2)
  @Measurement(iterations = 5)
  public long appendThenFlush() throws InterruptedException, ExecutionException {
    appendShot();
    log.flush();
    disk.submit(() -> {}).get(); // the rolls' flushes, queued before it, are done too
    return log.recoveryPoint();
  }

  private void appendShot() {
    for (int i = 0; i < batchesPerShot; i++) {
      log.appendAsLeader(batches[i & (Workload.DISTINCT_BATCHES - 1)], 0);
    }
  }
}
