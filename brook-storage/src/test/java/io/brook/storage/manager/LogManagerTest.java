package io.brook.storage.manager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.checkpoint.OffsetCheckpointFile;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogManagerTest {
  @TempDir Path root;

  private final ManualTime time = new ManualTime();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stopScheduler() {
    scheduler.shutdownNow();
  }

  private LogManager start(List<Path> dirs) throws IOException {
    return LogManager.start(
        LogManagerConfig.defaults(dirs), topic -> LogConfig.defaults(), time, scheduler);
  }

  @Test
  void spreadsPartitionsOverDirectoriesAndReloadsThem() throws Exception {
    // Given
    List<Path> dirs = List.of(root.resolve("a"), root.resolve("b"));
    LogManager manager = start(dirs);
    for (int p = 0; p < 6; p++) {
      PartitionLog log = manager.getOrCreateLog(new TopicPartition("orders", p));
      log.appendAsLeader(Batches.records(p + 1, 1L), 0);
      log.updateHighWatermark(p + 1);
    }

    // When
    manager.close();
    LogManager reloaded = start(dirs);

    // Then
    assertThat(reloaded.logs()).hasSize(6);
    for (int p = 0; p < 6; p++) {
      PartitionLog log = reloaded.getLog(new TopicPartition("orders", p)).orElseThrow();
      assertThat(log.logEndOffset()).isEqualTo(p + 1);
      assertThat(log.highWatermark()).isEqualTo(p + 1);
    }
    try (var a = Files.list(dirs.get(0));
        var b = Files.list(dirs.get(1))) {
      assertThat(a.filter(Files::isDirectory).count()).isEqualTo(3);
      assertThat(b.filter(Files::isDirectory).count()).isEqualTo(3);
    }
    reloaded.close();
  }

  @Test
  void aSecondManagerCannotOpenTheSameDirectory() throws Exception {
    // Given
    List<Path> dirs = List.of(root.resolve("data"));
    LogManager first = start(dirs);

    // When / Then
    assertThatThrownBy(() -> start(dirs))
        .isInstanceOf(DirectoryInUseException.class)
        .hasMessageContaining("in use by another Brook process");
    first.close();
    start(dirs).close();
  }

  @Test
  void writesTheCleanShutdownMarkerAndCheckpointsOnlyAtClose() throws Exception {
    // Given
    Path dir = root.resolve("data");
    LogManager manager = start(List.of(dir));
    manager.getOrCreateLog(new TopicPartition("t", 0)).appendAsLeader(Batches.records(5, 1L), 0);

    // When
    boolean markerWhileRunning = Files.exists(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE));
    manager.close();

    // Then
    assertThat(markerWhileRunning).isFalse();
    assertThat(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
    assertThat(Files.readAllLines(dir.resolve(LogManager.RECOVERY_POINT_CHECKPOINT)))
        .containsExactly("0", "1", "t 0 5");
    assertThat(dir.resolve(LogManager.LOG_START_OFFSET_CHECKPOINT)).exists();
    // The marker is consumed by the next start, so a crash after it means recovery.
    LogManager again = start(List.of(dir));
    assertThat(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
    again.close();
  }

  @Test
  void deletesALogAndItsDirectory() throws Exception {
    // Given
    Path dir = root.resolve("data");
    LogManager manager = start(List.of(dir));
    TopicPartition tp = new TopicPartition("gone", 3);
    manager.getOrCreateLog(tp).appendAsLeader(Batches.records(5, 1L), 0);

    // When
    manager.deleteLog(tp);

    // Then
    assertThat(manager.getLog(tp)).isEmpty();
    assertThat(dir.resolve("gone-3")).doesNotExist();
    manager.close();
  }

  @Test
  void checkpointsWrittenFromSeveralThreadsAtOnceKeepTheDirectoryOnline() throws Exception {
    // Given: a directory with logs whose offsets keep moving, as a broker's do while its periodic
    // tasks (two threads) checkpoint them: the log start offsets, for one, are written by their
    // own task and by both retention tasks
    List<Path> dirs = List.of(root.resolve("data"));
    LogManager manager = start(dirs);
    List<PartitionLog> logs = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      logs.add(manager.getOrCreateLog(new TopicPartition("orders", p)));
    }

    // When: two threads write the same checkpoint files over and over at the same time
    int rounds = 300;
    CyclicBarrier start = new CyclicBarrier(2);
    ExecutorService writers = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        int writer = w;
        done.add(
            writers.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < rounds; i++) {
                    if (writer == 0) {
                      PartitionLog log = logs.get(i % logs.size());
                      log.appendAsLeader(Batches.records(1, (long) i), 0);
                      log.updateHighWatermark(log.logEndOffset());
                    }
                    manager.checkpointRecoveryPointsAndHighWatermarks();
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      writers.shutdownNow();
    }

    // Then: no write failed, so the directory is online, and the files hold the last offsets
    assertThat(manager.isLogDirOffline(dirs.get(0))).isFalse();
    manager.checkpointRecoveryPointsAndHighWatermarks();
    Map<TopicPartition, Long> highWatermarks =
        new OffsetCheckpointFile(dirs.get(0).resolve(LogManager.HIGH_WATERMARK_CHECKPOINT)).read();
    for (PartitionLog log : logs) {
      assertThat(highWatermarks.get(log.topicPartition())).isEqualTo(log.highWatermark());
    }
    manager.close();
  }

  @Test
  void noPeriodicTaskRunsOnceTheCloseHasBegun() throws Exception {
    // Given: a manager whose periodic tasks a test scheduler keeps, to run them when the test says
    List<Runnable> periodic = new ArrayList<>();
    ScheduledThreadPoolExecutor keeping =
        new ScheduledThreadPoolExecutor(1) {
          @Override
          public ScheduledFuture<?> scheduleWithFixedDelay(
              Runnable command, long initialDelay, long delay, TimeUnit unit) {
            periodic.add(command);
            return schedule(() -> {}, 1, TimeUnit.DAYS);
          }
        };
    Path dir = root.resolve("data");
    try {
      LogManager manager =
          LogManager.start(
              LogManagerConfig.defaults(List.of(dir)),
              topic -> LogConfig.defaults(),
              time,
              keeping);
      PartitionLog log = manager.getOrCreateLog(new TopicPartition("orders", 0));
      log.appendAsLeader(Batches.records(3, 1L), 0);
      log.updateHighWatermark(3);
      assertThat(periodic).isNotEmpty();

      // When: the manager closes, its checkpoints are taken away, and every periodic task runs
      // (as a run already due when the close cancelled it would)
      manager.close();
      List<String> checkpoints =
          List.of(
              LogManager.RECOVERY_POINT_CHECKPOINT,
              LogManager.HIGH_WATERMARK_CHECKPOINT,
              LogManager.LOG_START_OFFSET_CHECKPOINT);
      for (String checkpoint : checkpoints) {
        Files.delete(dir.resolve(checkpoint));
      }
      periodic.forEach(Runnable::run);

      // Then: none of them wrote anything, and the directory is still the clean one the close left
      for (String checkpoint : checkpoints) {
        assertThat(dir.resolve(checkpoint)).doesNotExist();
      }
      assertThat(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
      assertThat(manager.isLogDirOffline(dir)).isFalse();
    } finally {
      keeping.shutdownNow();
    }
  }

  @Test
  void partitionDirectoryNamesRoundTrip() {
    TopicPartition tp = new TopicPartition("my-topic-with-dashes", 12);
    assertThat(PartitionDirectories.parse(Path.of(PartitionDirectories.name(tp)))).hasValue(tp);
    assertThat(PartitionDirectories.parse(Path.of("no-number-x"))).isEmpty();
    assertThat(PartitionDirectories.parse(Path.of("-1"))).isEmpty();
  }
}
