package io.brook.storage.crash;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;

/**
 * The child process of {@link LogCrashIT}: opens the log (recovering it), then appends the next
 * deterministic batches forever, printing {@code ACK <index>} after each append returns. The parent
 * kills it with SIGKILL at a random moment.
 */
public final class CrashingAppender {
  static final TopicPartition TP = new TopicPartition("crash", 0);
  static final LogConfig CONFIG = LogConfig.builder().segmentBytes(64 * 1024).build();

  private CrashingAppender() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    LogManager manager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(dir)), t -> CONFIG, Time.SYSTEM, scheduler);
    PartitionLog log = manager.getOrCreateLog(TP);
    long next = log.logEndOffset() / CrashBatches.RECORDS_PER_BATCH;
    PrintStream out = System.out;
    out.println("READY " + next);
    out.flush();
    while (true) {
      log.appendAsLeader(CrashBatches.batch(seed, next), 0);
      out.println("ACK " + next);
      out.flush();
      next++;
    }
  }
}
