package io.brook.storage.crash;

import io.brook.storage.cleaner.CleanerConfig;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;

/**
 * The child process of {@link CleanerCrashIT}: opens a compacted log with the cleaner running
 * continuously (dirty ratio 0, 10 ms backoff, small segments) and appends deterministic keyed
 * batches forever, printing {@code ACK <index>} after each append returns. The parent kills it with
 * SIGKILL, usually in the middle of a cleaning pass.
 */
public final class CrashingCleaner {
  static final TopicPartition TP = new TopicPartition("compacted", 0);
  static final int RECORDS_PER_BATCH = 20;
  static final int KEYS = 300;
  static final LogConfig CONFIG =
      LogConfig.builder()
          .compacted(true)
          .segmentBytes(16 * 1024)
          .minCleanableDirtyRatio(0)
          .fileDeleteDelayMs(0)
          .build();

  private CrashingCleaner() {}

  /** Record {@code j} of batch {@code index}: a key among {@link #KEYS} and a unique value. */
  static String key(long seed, long index, int j) {
    return "k" + new Random(seed * 31 + index * RECORDS_PER_BATCH + j).nextInt(KEYS);
  }

  static String value(long index, int j) {
    return "v" + index + "-" + j + "-" + "x".repeat((int) (index % 50));
  }

  static MemoryRecords batch(long seed, long index) {
    SimpleRecord[] records = new SimpleRecord[RECORDS_PER_BATCH];
    for (int j = 0; j < RECORDS_PER_BATCH; j++) {
      records[j] =
          new SimpleRecord(
              1_700_000_000_000L + index,
              key(seed, index, j).getBytes(StandardCharsets.UTF_8),
              value(index, j).getBytes(StandardCharsets.UTF_8));
    }
    Compression compression = index % 3 == 0 ? Compression.lz4().build() : Compression.NONE;
    return MemoryRecords.withRecords(compression, records);
  }

  static LogManagerConfig managerConfig(Path dir, boolean cleaner) {
    CleanerConfig config =
        new CleanerConfig(cleaner, 1, 1024 * 1024, 64 * 1024, 0.9, Double.MAX_VALUE, 10);
    return LogManagerConfig.defaults(List.of(dir)).withCleaner(config);
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    LogManager manager =
        LogManager.start(managerConfig(dir, true), t -> CONFIG, Time.SYSTEM, scheduler);
    PartitionLog log = manager.getOrCreateLog(TP);
    long next = log.logEndOffset() / RECORDS_PER_BATCH;
    PrintStream out = System.out;
    while (true) {
      log.appendAsLeader(batch(seed, next), 0);
      log.updateHighWatermark(log.logEndOffset());
      out.println("ACK " + next);
      out.flush();
      next++;
      if (next % 50 == 0) {
        // Give the cleaner thread room on a 2-core machine, so kills land inside its passes.
        Thread.sleep(5);
      }
    }
  }
}
