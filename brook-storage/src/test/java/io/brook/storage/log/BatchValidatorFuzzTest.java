package io.brook.storage.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.brook.storage.StorageException;
import io.brook.storage.testing.LogReads;
import io.brook.storage.testing.ManualTime;
import io.brook.storage.testing.RawBatches;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Any bytes offered as a produce append are either accepted or refused with a {@link
 * StorageException}, never anything else; an accepted append reads back from the log exactly as it
 * was appended (with the offsets, leader epoch and max timestamp the leader wrote into it).
 *
 * <p>Input: one byte of flags, then the append's bytes. Flag bit 0 recomputes the CRC of every
 * whole batch (otherwise almost every mutation dies at the CRC check and the record walk is never
 * reached); bit 1 makes the topic compacted; bit 2 uses LogAppendTime (so record timestamps are not
 * checked); bit 3 appends as a coordinator (control batches allowed). The log's limits are small
 * (64 KiB batches, factor 4) so that a fuzzed bomb costs little.
 *
 * <p>The seed corpus ({@code BatchValidatorFuzzTestInputs/appendAcceptsOrRefuses}) holds a valid
 * batch of each codec and a few lying ones, made by {@link BatchValidatorFuzzSeeds}.
 */
class BatchValidatorFuzzTest {
  static final long NOW = 1_700_000_000_000L;

  private static PartitionLog[] logs;
  private static Path root;

  /**
   * One log per flag combination, kept for the whole run (opening one per input would dominate the
   * fuzzer's time) and deleted when the JVM exits.
   */
  private static synchronized PartitionLog log(int flags) {
    if (logs == null) {
      logs = new PartitionLog[8];
      try {
        root = Files.createTempDirectory("brook-validator-fuzz-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(BatchValidatorFuzzTest::deleteLogs));
    }
    int variant = (flags >> 1) & 7;
    if (logs[variant] == null) {
      try {
        Path dir = root.resolve("fuzz-" + variant);
        LogConfig config =
            LogConfig.builder()
                .maxMessageBytes(64 * 1024)
                .maxInflatedBytesFactor(4)
                .cleanupPolicy(List.of((variant & 1) != 0 ? "compact" : "delete"))
                .timestampType(
                    (variant & 2) != 0 ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME)
                .build();
        logs[variant] =
            PartitionLog.open(
                dir,
                config,
                LogOpenOptions.defaults(new TopicPartition("fuzz", variant), new ManualTime(NOW)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return logs[variant];
  }

  @FuzzTest(maxDuration = "4m")
  void appendAcceptsOrRefuses(byte[] input) {
    if (input.length < 1 + DefaultRecordBatch.RECORD_BATCH_OVERHEAD) {
      return;
    }
    int flags = input[0];
    ByteBuffer buffer = ByteBuffer.wrap(Arrays.copyOfRange(input, 1, input.length));
    if ((flags & 1) != 0) {
      fixCrcs(buffer);
    }
    MemoryRecords records = MemoryRecords.readableRecords(buffer);
    PartitionLog log = log(flags);
    LogAppendInfo appended;
    try {
      appended =
          (flags & 8) != 0 ? log.appendAsCoordinator(records, 1) : log.appendAsLeader(records, 1);
    } catch (StorageException refused) {
      return;
    }
    if (appended.duplicate()) {
      return;
    }
    log.updateHighWatermark(log.logEndOffset());
    byte[] stored = LogReads.bytes(log, appended.firstOffset(), appended.lastOffset() + 1);
    assertThat(stored).isEqualTo(Arrays.copyOf(buffer.array(), records.sizeInBytes()));
  }

  private static synchronized void deleteLogs() {
    for (PartitionLog log : logs) {
      if (log != null) {
        try {
          log.delete();
        } catch (IOException | RuntimeException e) {
          // The JVM is exiting; a leftover temporary directory is all that is lost.
        }
      }
    }
    try {
      Files.deleteIfExists(root);
    } catch (IOException e) {
      // As above.
    }
  }

  /** Recomputes the CRC of every whole batch the length fields describe. */
  static void fixCrcs(ByteBuffer buffer) {
    int position = 0;
    while (buffer.limit() - position >= DefaultRecordBatch.RECORD_BATCH_OVERHEAD) {
      int size = buffer.getInt(position + 8) + 12;
      if (size < DefaultRecordBatch.RECORD_BATCH_OVERHEAD || size > buffer.limit() - position) {
        return;
      }
      RawBatches.fixCrc(buffer, position);
      position += size;
    }
  }
}
