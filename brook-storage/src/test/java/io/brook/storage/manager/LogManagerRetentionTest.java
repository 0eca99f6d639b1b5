package io.brook.storage.manager;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.checkpoint.OffsetCheckpointFile;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogRetention;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.ManualTime;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogManagerRetentionTest {
  private static final TopicPartition TP = new TopicPartition("events", 0);

  @TempDir Path root;

  private final ManualTime time = new ManualTime();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stopScheduler() {
    scheduler.shutdownNow();
  }

  @Test
  void retentionFollowsTopicConfigChangesAndCheckpointsTheNewLogStartAtOnce() throws Exception {
    // Given: a topic kept forever, three one-batch segments an hour old
    AtomicReference<LogConfig> topicConfig =
        new AtomicReference<>(
            LogConfig.builder().segmentBytes(1500).retentionMs(-1).fileDeleteDelayMs(0).build());
    LogManager manager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(root)), t -> topicConfig.get(), time, scheduler);
    PartitionLog log = manager.getOrCreateLog(TP);
    long hourAgo = time.milliseconds() - 3_600_000;
    for (int i = 0; i < 3; i++) {
      log.appendAsLeader(Batches.sized(1, 1024, hourAgo, i), 0);
    }
    log.updateHighWatermark(log.logEndOffset());
    assertThat(manager.deleteOldSegments()).isZero();

    // When: retention.ms becomes one minute at runtime (as ReplicaManager applies metadata)
    log.updateConfig(log.config().toBuilder().retentionMs(60_000).build());
    int deleted = manager.deleteOldSegments();

    // Then: everything expired goes; an empty active segment is left at the log end
    assertThat(deleted).isEqualTo(3);
    assertThat(log.logStartOffset()).isEqualTo(3);
    assertThat(log.logEndOffset()).isEqualTo(3);
    assertThat(
            new OffsetCheckpointFile(root.resolve(LogManager.LOG_START_OFFSET_CHECKPOINT)).read())
        .containsEntry(TP, 3L);
    manager.close();

    // And a restart keeps the new start
    LogManager restarted =
        LogManager.start(
            LogManagerConfig.defaults(List.of(root)), t -> topicConfig.get(), time, scheduler);
    assertThat(restarted.getLog(TP).orElseThrow().logStartOffset()).isEqualTo(3);
    restarted.close();
  }

  @Test
  void withTheDeadlineNoRecordOutlivesRetentionByMoreThanOneCheckInterval() throws Exception {
    // Given: retention of one hour, checks every 5 minutes, a record every 30 s for 4 hours
    long interval = 300_000;
    long retention = 3_600_000;
    LogConfig config =
        LogConfig.builder()
            .retentionMs(retention)
            .retentionDeadlineEnable(true)
            .fileDeleteDelayMs(0)
            .build();
    LogManager manager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(root)).withRetentionCheckIntervalMs(interval),
            t -> config,
            time,
            scheduler);
    PartitionLog log = manager.getOrCreateLog(TP);
    long start = time.milliseconds();
    long worst = 0;

    // When: the deadline check runs at its cadence (half the interval), on the manual clock
    for (long now = start; now < start + 4 * retention; now += 30_000) {
      time.advance(now - time.milliseconds());
      log.appendAsLeader(Batches.records(1, now), 0);
      log.updateHighWatermark(log.logEndOffset());
      if ((now - start) % LogRetention.deadlineCheckIntervalMs(interval) == 0) {
        manager.deleteOldSegmentsOfDeadlineTopics();
      }
      long oldest =
          log.read(log.logStartOffset(), 1 << 20, log.highWatermark(), true)
              .slice()
              .copyToMemory()
              .batches()
              .iterator()
              .next()
              .maxTimestamp();
      worst = Math.max(worst, now - oldest);
    }

    // Then: the oldest record ever present was at most retention + one interval old
    assertThat(worst).isGreaterThan(retention).isLessThanOrEqualTo(retention + interval);
    manager.close();
  }
}
