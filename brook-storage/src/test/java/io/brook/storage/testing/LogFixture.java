package io.brook.storage.testing;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;

/** Opens partition logs in a test directory on a manual clock. */
public final class LogFixture {
  public static final TopicPartition TP = new TopicPartition("orders", 0);

  private final Path dir;
  private final ManualTime time = new ManualTime();
  private LogConfig config = LogConfig.defaults();

  public LogFixture(Path root) {
    this.dir = root.resolve("orders-0");
  }

  public LogFixture config(LogConfig value) {
    config = value;
    return this;
  }

  public ManualTime time() {
    return time;
  }

  public Path dir() {
    return dir;
  }

  public PartitionLog open() {
    return open(0, 0, 0, true);
  }

  /** Reopens after a crash: nothing was checkpointed past {@code recoveryPoint}. */
  public PartitionLog openAfterCrash(long recoveryPoint) {
    return open(recoveryPoint, 0, 0, false);
  }

  public PartitionLog open(
      long recoveryPoint, long logStartOffset, long highWatermark, boolean clean) {
    try {
      return PartitionLog.open(
          dir,
          config,
          LogOpenOptions.defaults(TP, time)
              .withCheckpoints(recoveryPoint, logStartOffset, highWatermark, clean));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Flips the bits of {@code mask} in the byte at {@code position} of {@code file}: corruption. */
  public static void flipBits(Path file, long position, int mask) {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(position);
      int b = raf.read();
      raf.seek(position);
      raf.write(b ^ mask);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Recomputes a v2 batch's CRC after a test edited bytes the CRC covers. */
  public static void rewriteCrc(ByteBuffer batch) {
    int size = batch.getInt(batch.position() + 8) + 12;
    CRC32C crc = new CRC32C();
    ByteBuffer covered = batch.duplicate();
    covered.position(batch.position() + 21);
    covered.limit(batch.position() + size);
    crc.update(covered);
    batch.putInt(batch.position() + DefaultRecordBatch.CRC_OFFSET, (int) crc.getValue());
  }
}
