package io.brook.storage.crash;

import io.brook.storage.epoch.LeaderEpochCache;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;

/**
 * The child process of {@link EpochCrashIT}: reopens the log (recovering it), then appends forever
 * while the leader epoch keeps changing, sometimes assigning an epoch at the log end before writing
 * in it (as a broker does on becoming leader), sometimes for leaderships that write nothing. It
 * checkpoints recovery points often so that reopening recovers from the middle of the log.
 */
public final class CrashingLeader {
  static final TopicPartition TP = new TopicPartition("epochs", 0);

  private CrashingLeader() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Random random = new Random(Long.parseLong(args[1]));
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    LogManager manager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(dir)),
            t -> CrashingAppender.CONFIG,
            Time.SYSTEM,
            scheduler);
    PartitionLog log = manager.getOrCreateLog(TP);
    LeaderEpochCache epochs = log.leaderEpochCache();
    int epoch = epochs.latestEpoch().orElse(-1) + 1;
    long next = log.logEndOffset() / CrashBatches.RECORDS_PER_BATCH;
    PrintStream out = System.out;
    out.println("READY " + next);
    out.flush();
    int left = 1 + random.nextInt(20);
    while (true) {
      if (--left == 0) {
        epoch += 1 + random.nextInt(2);
        left = 1 + random.nextInt(20);
        if (random.nextInt(4) == 0) {
          // A leadership that ends before writing anything.
          epochs.assign(epoch, log.logEndOffset());
          epoch++;
        }
        if (random.nextBoolean()) {
          epochs.assign(epoch, log.logEndOffset());
        }
      }
      log.appendAsLeader(CrashBatches.batch(1, next), epoch);
      next++;
      if (next % 10 == 0) {
        manager.checkpointRecoveryPointsAndHighWatermarks();
      }
      out.println("ACK " + next);
      out.flush();
    }
  }
}
