package io.brook.bench;

import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.FileSlice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.record.internal.MemoryRecords;
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
 * A consumer reading a pre-filled log from offset 0 to the end in 1 MiB fetches, over and over:
 * each operation is one {@link PartitionLog#read} of up to {@link #FETCH_BYTES} plus moving the
 * returned file range out of the page cache. The log is flushed before measuring, so it is clean
 * and wholly in the page cache (it is far smaller than memory): this measures the read path, not
 * the disk.
 *
 * <ul>
 *   <li>{@link #transferTo}: zero copy, what the network layer will do with {@code sendfile(2)}:
 *       {@code FileChannel.transferTo} into a {@code FileChannel} on {@code /dev/null}. A
 *       hand-written discarding {@code WritableByteChannel} would not do: the JDK only uses {@code
 *       sendfile} towards a file or socket channel and otherwise copies through an 8 KiB bounce
 *       buffer, which is not the path being measured.
 *   <li>{@link #readIntoDirectBuffer}: one copy out of the page cache into a reused 1 MiB direct
 *       {@code ByteBuffer} (what a TLS listener, which cannot use {@code sendfile}, would pay).
 * </ul>
 *
 * <p>The {@code megabytes} counter is the rate in MB/s (10^6 bytes) of bytes moved. A 1 MiB fetch
 * ends inside a batch; as a Kafka consumer does, the next fetch starts at the first batch not
 * wholly received, so about one batch in 64 is sent twice (counted both times). The next offset is
 * computed from the fixed batch size (the consumer's work, not the broker's), not by parsing.
 */
@State(Scope.Thread)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class SequentialReadBenchmark {

  /** 1 MiB per fetch: Kafka's consumer default {@code max.partition.fetch.bytes} (1048576). */
  static final int FETCH_BYTES = 1024 * 1024;

  /**
   * Log size: 512 MiB, half a default segment: far beyond the CPU caches (32 MiB L3 here), so every
   * pass really streams from memory, yet small enough to stay in the page cache and fill quickly.
   */
  @Param("512")
  public int logMiB;

  private Path dir;
  private PartitionLog log;
  private long logEndOffset;
  private int batchBytes;
  private long nextOffset;
  private FileChannel devNull;
  private ByteBuffer buffer;

  /** Bytes moved, reported by JMH as a rate: MB/s. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Moved {
    public double megabytes;

    @Setup(Level.Iteration)
    public void reset() {
      megabytes = 0;
    }
  }

  @Setup(Level.Trial)
  public void fill() throws IOException {
    MemoryRecords[] batches = Workload.batches(System.currentTimeMillis());
    batchBytes = Workload.batchBytes(batches);
    dir = Workload.tempDir();
    log = Workload.openFreshLog(dir);
    Workload.prefill(log, batches, logMiB * Workload.MIB);
    log.updateHighWatermark(log.logEndOffset());
    logEndOffset = log.logEndOffset();
    devNull = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
    buffer = ByteBuffer.allocateDirect(FETCH_BYTES);
    System.out.printf(
        "%nlog: %d batches of %d B, %d B, offsets [0, %d)%n",
        logEndOffset / Workload.RECORDS_PER_BATCH,
        batchBytes,
        log.segments().iterator().next().sizeInBytes(),
        logEndOffset);
  }

  @TearDown(Level.Trial)
  public void delete() throws IOException {
    devNull.close();
    log.delete();
    Workload.deleteRecursively(dir);
  }

  /** One 1 MiB fetch sent with {@code sendfile} to /dev/null. */
  @Benchmark
  public int transferTo(Moved moved) throws IOException {
    FileSlice slice = fetch();
    slice.pin();
    try {
      FileChannel channel = slice.channel();
      long position = slice.position();
      long remaining = slice.sizeInBytes();
      while (remaining > 0) {
        long sent = channel.transferTo(position, remaining, devNull);
        if (sent <= 0) {
          throw new IOException("transferTo made no progress at position " + position);
        }
        position += sent;
        remaining -= sent;
      }
    } finally {
      slice.unpin();
    }
    return advance(slice, moved);
  }

  /** One 1 MiB fetch copied into a reused direct buffer. */
  @Benchmark
  public int readIntoDirectBuffer(Moved moved) throws IOException {
    FileSlice slice = fetch();
    slice.pin();
    try {
      FileChannel channel = slice.channel();
      buffer.clear().limit(slice.sizeInBytes());
      long position = slice.position();
      while (buffer.hasRemaining()) {
        int read = channel.read(buffer, position);
        if (read <= 0) {
          throw new IOException("read made no progress at position " + position);
        }
        position += read;
      }
    } finally {
      slice.unpin();
    }
    return advance(slice, moved);
  }

  private FileSlice fetch() {
    return log.read(nextOffset, FETCH_BYTES, logEndOffset, true).slice();
  }

  /** Moves to the first batch not wholly inside {@code slice}, wrapping to 0 at the end. */
  private int advance(FileSlice slice, Moved moved) {
    int size = slice.sizeInBytes();
    moved.megabytes += size / 1e6;
    nextOffset += (long) (size / batchBytes) * Workload.RECORDS_PER_BATCH;
    if (nextOffset >= logEndOffset) {
      nextOffset = 0;
    }
    return size;
  }
}
