package io.brook.storage.manager;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requirement at the scale of one node of "2,000 topics × 12 partitions × RF 3": more
 * partitions in one log manager than {@code ulimit -n} (20,000 on the build machine) allows open
 * files, each written and read back, while the process's descriptors (counted in {@code
 * /proc/self/fd}) stay under the pool's bound plus a small constant, and so do the memory mappings
 * ({@code /proc/self/maps}, limited by {@code vm.max_map_count}). {@code -Dbrook.test.partitions=N}
 * changes the count.
 */
@EnabledOnOs(OS.LINUX)
class ManyPartitionsFileLimitTest {
  private static final Logger LOG = LoggerFactory.getLogger(ManyPartitionsFileLimitTest.class);
  private static final int PARTITIONS = Integer.getInteger("brook.test.partitions", 30_000);
  private static final int MAX_OPEN_FILES = 1_000;
  private static final int NO_EPOCH = -1;

  /**
   * Descriptors besides the pool's that may be open at once: the directory lock, a checkpoint or
   * snapshot being written, the {@code /proc/self/fd} listing itself, and slack for the JVM.
   */
  private static final int OTHER_DESCRIPTORS = 32;

  @TempDir Path diskDir;

  /**
   * Where the partitions live: tmpfs when the machine has one, because creating 30,000 directories
   * and 120,000 files on a journaling disk takes minutes of metadata writes that say nothing about
   * descriptors.
   */
  private Path root;

  private final ManualTime time = new ManualTime();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

  @BeforeEach
  void pickDirectory() throws IOException {
    Path shm = Path.of("/dev/shm");
    root =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? Files.createTempDirectory(shm, "brook-many-partitions")
            : diskDir;
  }

  @AfterEach
  void stopSchedulerAndClean() throws IOException {
    scheduler.shutdownNow();
    if (!root.equals(diskDir)) {
      try (Stream<Path> walk = Files.walk(root)) {
        for (Path path : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(path);
        }
      }
    }
  }

  @Test
  void morePartitionsThanTheDescriptorLimitStayWritableAndReadable() throws Exception {
    // Given
    long baseline = openDescriptors();
    long baselineMappings = mappings();
    long bound = baseline + MAX_OPEN_FILES + OTHER_DESCRIPTORS;
    LogConfig config = LogConfig.builder().segmentIndexBytes(1024).build();
    LogManager manager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(root)).withMaxOpenFiles(MAX_OPEN_FILES),
            topic -> config,
            time,
            scheduler);
    long peak = 0;

    // When: every partition is created and takes one record. Leader epoch -1 (none): assigning an
    // epoch writes the leader-epoch checkpoint with two fsyncs, which would dominate the run time
    // and has nothing to do with descriptors (the checkpoint is open only while written).
    for (int p = 0; p < PARTITIONS; p++) {
      PartitionLog log = manager.getOrCreateLog(partition(p));
      log.appendAsLeader(Batches.records(1, p), NO_EPOCH);
      log.updateHighWatermark(1);
      if (p % 1000 == 0) {
        peak = Math.max(peak, openDescriptors());
      }
    }

    // Then: each reads its record back, and appends again after its file was closed
    for (int p = 0; p < PARTITIONS; p++) {
      PartitionLog log = manager.getLog(partition(p)).orElseThrow();
      assertThat(firstTimestamp(log)).isEqualTo(p);
      log.appendAsLeader(Batches.records(1, p), NO_EPOCH);
      assertThat(log.logEndOffset()).isEqualTo(2);
      if (p % 1000 == 0) {
        peak = Math.max(peak, openDescriptors());
      }
    }
    long afterTraffic = openDescriptors();
    LOG.info(
        "partitions={} maxOpenFiles={} baselineFds={} peakFds={} finalFds={} poolOpen={}"
            + " poolOpens={} evictions={} mappings={}",
        PARTITIONS,
        MAX_OPEN_FILES,
        baseline,
        Math.max(peak, afterTraffic),
        afterTraffic,
        manager.files().openFiles(),
        manager.files().opens(),
        manager.files().evictions(),
        mappings());
    assertThat(manager.files().openFiles()).isLessThanOrEqualTo(MAX_OPEN_FILES);
    // Two index mappings per open file at most; closed ones are unmapped, not left to the GC.
    assertThat(mappings()).isLessThanOrEqualTo(baselineMappings + 2L * MAX_OPEN_FILES + 256);
    assertThat(Math.max(peak, afterTraffic)).isLessThanOrEqualTo(bound);
    manager.close();
    assertThat(openDescriptors()).isLessThanOrEqualTo(baseline + OTHER_DESCRIPTORS);
  }

  private static TopicPartition partition(int p) {
    return new TopicPartition("t" + p / 12, p % 12);
  }

  /** The timestamp of the first record (its partition's number), read as a consumer would. */
  private static long firstTimestamp(PartitionLog log) {
    MemoryRecords read = log.read(0, 1 << 20, log.highWatermark(), true).slice().copyToMemory();
    return read.records().iterator().next().timestamp();
  }

  private static long openDescriptors() {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long mappings() throws IOException {
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
      return lines.count();
    }
  }
}
