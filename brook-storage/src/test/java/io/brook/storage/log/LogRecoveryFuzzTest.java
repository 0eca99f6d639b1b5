package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogReads;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A segment whose tail was torn or overwritten by garbage (a crash mid-write, a bad disk) is
 * recovered by {@link LogLoader}: recovery never throws, cuts the log at the first bad batch, and
 * every batch before the damage reads back byte for byte.
 *
 * <p>Input: one byte of flags, one byte of position, then the garbage. Flag bit 0 writes the
 * garbage over the last good batch (from the position byte, modulo its size) instead of after it;
 * bit 1 recomputes the CRC of whatever whole batches the garbage's length fields describe, so that
 * well-checksummed lies reach the deeper checks. The seed corpus ({@code
 * LogRecoveryFuzzTestInputs/recoveryKeepsEveryBatchBeforeTheDamage}) is written by {@link
 * BatchValidatorFuzzSeeds}.
 */
class LogRecoveryFuzzTest {
  private static final long NOW = BatchValidatorFuzzTest.NOW;
  private static final CompressionType[] CODECS = {
    CompressionType.NONE,
    CompressionType.GZIP,
    CompressionType.SNAPPY,
    CompressionType.LZ4,
    CompressionType.ZSTD
  };

  /**
   * Where each input's log lives: a memory file system when there is one, so that the fsyncs of
   * closing a log (two per input) do not limit the fuzzer to a few dozen inputs a second.
   */
  private static final Path SCRATCH = scratch();

  private static Path scratch() {
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      return shm;
    }
    return Path.of(System.getProperty("java.io.tmpdir"));
  }

  @FuzzTest(maxDuration = "4m")
  void recoveryKeepsEveryBatchBeforeTheDamage(byte[] input) throws IOException {
    if (input.length < 3) {
      return;
    }
    int flags = input[0];
    int at = input[1] & 0xff;
    byte[] garbage = Arrays.copyOfRange(input, 2, input.length);
    if ((flags & 2) != 0) {
      BatchValidatorFuzzTest.fixCrcs(ByteBuffer.wrap(garbage));
    }
    Path dir = Files.createTempDirectory(SCRATCH, "brook-recovery-fuzz-").resolve("fuzz-0");
    try {
      check(dir, (flags & 1) != 0, at, garbage);
    } finally {
      deleteRecursively(dir.getParent());
    }
  }

  private static void check(Path dir, boolean overLastBatch, int at, byte[] garbage)
      throws IOException {
    // Given: one good batch per codec, closed cleanly
    LogConfig config = LogConfig.defaults();
    long[] ends = new long[CODECS.length];
    int[] positions = new int[CODECS.length + 1];
    byte[] good;
    try (PartitionLog log = open(dir, config, true)) {
      for (int i = 0; i < CODECS.length; i++) {
        MemoryRecords batch = Batches.records(3, NOW, CODECS[i]);
        positions[i + 1] = positions[i] + batch.sizeInBytes();
        ends[i] = log.appendAsLeader(batch, 0).lastOffset() + 1;
      }
      good = LogReads.bytes(log);
    }

    // When: the tail is damaged and the log reopened as after a crash
    int lastStart = positions[CODECS.length - 1];
    int lastSize = positions[CODECS.length] - lastStart;
    int writeAt = overLastBatch ? lastStart + at % lastSize : positions[CODECS.length];
    try (FileChannel file =
        FileChannel.open(dir.resolve("00000000000000000000.log"), StandardOpenOption.WRITE)) {
      file.write(ByteBuffer.wrap(garbage), writeAt);
    }
    int intact = overLastBatch ? CODECS.length - 1 : CODECS.length;
    try (PartitionLog recovered = open(dir, config, false)) {
      // Then: every batch before the damage is still there, byte for byte
      long keptEnd = ends[intact - 1];
      assertThat(recovered.logEndOffset()).isGreaterThanOrEqualTo(keptEnd);
      assertThat(LogReads.bytes(recovered, 0, keptEnd))
          .isEqualTo(Arrays.copyOf(good, positions[intact]));
    }
  }

  private static PartitionLog open(Path dir, LogConfig config, boolean clean) throws IOException {
    return PartitionLog.open(
        dir,
        config,
        LogOpenOptions.defaults(new TopicPartition("fuzz", 0), new ManualTime(NOW))
            .withCheckpoints(0, 0, 0, clean));
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
