package io.brook.bench;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;

/** The benchmarks' shared workload: the batches they append and the logs they append them to. */
final class Workload {
  private Workload() {}

  /** 1 KiB values: the record size. */
  static final int VALUE_BYTES = 1024;

  /**
   * 16 records of 1 KiB make a 16 KiB batch, the default {@code batch.size} (16384) of Kafka's
   * producer, so each append is one full producer batch.
   */
  static final int RECORDS_PER_BATCH = 16;

  /**
   * Distinct batches the benchmarks cycle through: 64 x 16 KiB = 1 MiB, a whole core's L2 on the
   * measuring machine (AMD EPYC, 1 MiB L2 per core), so the source bytes are not all L1/L2-hot as
   * one batch appended over and over would be.
   */
  static final int DISTINCT_BATCHES = 64;

  /** Seed for every random choice (values and offsets), so reruns do the same work. */
  static final long SEED = 0x5EED_B400CL;

  /** {@code MiB} in bytes. */
  static final long MIB = 1024L * 1024;

  /**
   * Builds {@link #DISTINCT_BATCHES} batches of {@link #RECORDS_PER_BATCH} uncompressed records
   * with random (incompressible) 1 KiB values, no key, and one shared timestamp, so every batch has
   * exactly the same size (see {@link #batchBytes}).
   */
  static MemoryRecords[] batches(long timestampMs) {
    Random random = new Random(SEED);
    MemoryRecords[] batches = new MemoryRecords[DISTINCT_BATCHES];
    for (int b = 0; b < batches.length; b++) {
      SimpleRecord[] records = new SimpleRecord[RECORDS_PER_BATCH];
      for (int r = 0; r < records.length; r++) {
        byte[] value = new byte[VALUE_BYTES];
        random.nextBytes(value);
        records[r] = new SimpleRecord(timestampMs, null, value);
      }
      batches[b] = MemoryRecords.withRecords(Compression.NONE, records);
    }
    return batches;
  }

  /** The size every batch has on disk; fails if they differ (the readers' arithmetic needs it). */
  static int batchBytes(MemoryRecords[] batches) {
    int size = batches[0].sizeInBytes();
    for (MemoryRecords batch : batches) {
      if (batch.sizeInBytes() != size) {
        throw new IllegalStateException("batches differ in size: " + size + " and " + batch);
      }
    }
    return size;
  }

  /** Opens a new, empty log with Kafka's default config in a fresh directory under /tmp. */
  static PartitionLog openFreshLog(Path dir) throws IOException {
    return PartitionLog.open(
        dir,
        LogConfig.defaults(),
        LogOpenOptions.defaults(new TopicPartition("bench", 0), Time.SYSTEM));
  }

  /**
   * Appends whole batches, cycling through {@code batches}, until the log holds at least {@code
   * bytes}; then fsyncs it so the measurement that follows does not compete with writeback.
   */
  static void prefill(PartitionLog log, MemoryRecords[] batches, long bytes) {
    long written = 0;
    for (int i = 0; written < bytes; i++) {
      MemoryRecords batch = batches[i % batches.length];
      log.appendAsLeader(batch, 0);
      written += batch.sizeInBytes();
    }
    log.flush();
  }

  /** A new directory for a benchmark's log, on the file system of /tmp. */
  static Path tempDir() throws IOException {
    return Files.createTempDirectory("brook-bench-");
  }

  /** Deletes {@code dir} and everything under it; nothing if it is null or absent. */
  static void deleteRecursively(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
