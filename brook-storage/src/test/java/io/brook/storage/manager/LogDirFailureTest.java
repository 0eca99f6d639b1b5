package io.brook.storage.manager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real I/O failures (a file's name taken by a non-empty directory, which even root cannot write
 * over) take their whole log directory offline, and only it; a directory with a failed write at
 * shutdown gets no clean-shutdown marker.
 */
class LogDirFailureTest {
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

  /** Makes {@code file} unwritable for anyone: a directory with something in it. */
  private static void block(Path file) throws IOException {
    Files.createDirectories(file);
    Files.writeString(file.resolve("in-the-way"), "x");
  }

  private static void assertStorageError(Runnable operation) {
    assertThatThrownBy(operation::run)
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.error()).isEqualTo(StorageError.KAFKA_STORAGE_ERROR));
  }

  @Test
  void anIoErrorOfOneLogTakesItsWholeDirectoryOfflineAndOnlyIt() throws Exception {
    // Given: two directories, two partitions in each
    List<Path> dirs = List.of(root.resolve("a"), root.resolve("b"));
    LogManager manager = start(dirs);
    PartitionLog[] logs = new PartitionLog[4];
    for (int p = 0; p < 4; p++) {
      logs[p] = manager.getOrCreateLog(new TopicPartition("orders", p));
      logs[p].appendAsLeader(Batches.records(3, 1L), 0);
    }
    PartitionLog failing = logs[0];
    Path failedDir = LogManager.logDirOf(failing);
    PartitionLog sameDir = null;
    PartitionLog otherDir = null;
    for (PartitionLog log : logs) {
      if (log != failing && LogManager.logDirOf(log).equals(failedDir)) {
        sameDir = log;
      } else if (!LogManager.logDirOf(log).equals(failedDir)) {
        otherDir = log;
      }
    }
    assertThat(sameDir).isNotNull();
    assertThat(otherDir).isNotNull();

    // When: the next segment of one log cannot be created
    block(failing.dir().resolve("00000000000000000003.log"));
    assertStorageError(failing::roll);

    // Then: its directory is offline, and every log in it stops serving
    assertThat(manager.isLogDirOffline(failedDir)).isTrue();
    assertThat(manager.offlineLogDirectoryCount()).isEqualTo(1);
    PartitionLog neighbour = sameDir;
    await().atMost(Duration.ofSeconds(10)).until(neighbour::isOffline);
    assertStorageError(() -> neighbour.read(0, 1024, 3, true));
    assertStorageError(() -> neighbour.appendAsLeader(Batches.records(1, 1L), 0));

    // And the other directory keeps working
    assertThat(otherDir.isOffline()).isFalse();
    otherDir.appendAsLeader(Batches.records(1, 1L), 0);
    assertThat(otherDir.read(0, 1024, 4, true).slice().sizeInBytes()).isPositive();
    assertThat(manager.isLogDirOffline(LogManager.logDirOf(otherDir))).isFalse();

    // And no new log is created while a log might be in the offline directory
    assertThatThrownBy(() -> manager.getOrCreateLog(new TopicPartition("orders", 9)))
        .isInstanceOf(IOException.class);

    // And at shutdown only the healthy directory is marked clean
    manager.close();
    assertThat(failedDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
    assertThat(LogManager.logDirOf(otherDir).resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
  }

  /** Each file written at shutdown, relative to the log directory. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        LogManager.RECOVERY_POINT_CHECKPOINT + ".tmp",
        LogManager.LOG_START_OFFSET_CHECKPOINT + ".tmp",
        LogManager.HIGH_WATERMARK_CHECKPOINT + ".tmp",
        "orders-0/00000000000000000003.snapshot.tmp"
      })
  void aWriteFailingAtShutdownLeavesTheDirectoryUnclean(String blocked) throws Exception {
    // Given
    Path dir = root.resolve("a");
    LogManager manager = start(List.of(dir));
    PartitionLog log = manager.getOrCreateLog(new TopicPartition("orders", 0));
    log.appendAsLeader(Batches.records(3, 1L), 0);

    // When: that file cannot be written at shutdown
    block(dir.resolve(blocked));
    manager.close();

    // Then: no clean-shutdown marker, so the next start recovers the directory
    assertThat(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
    assertThat(manager.isLogDirOffline(dir)).isTrue();
  }

  @Test
  void aDirectoryThatCannotBeLoadedGoesOfflineAndTheOthersServe() throws Exception {
    // Given: two directories with a partition each, cleanly closed
    List<Path> dirs = List.of(root.resolve("a"), root.resolve("b"));
    LogManager manager = start(dirs);
    PartitionLog first = manager.getOrCreateLog(new TopicPartition("orders", 0));
    PartitionLog second = manager.getOrCreateLog(new TopicPartition("orders", 1));
    first.appendAsLeader(Batches.records(3, 1L), 0);
    second.appendAsLeader(Batches.records(3, 1L), 0);
    Path broken = LogManager.logDirOf(first);
    Path firstLogDir = first.dir();
    manager.close();

    // When: one log of one directory cannot be read at the next start
    Path segment = firstLogDir.resolve("00000000000000000000.log");
    Files.delete(segment);
    block(segment);
    LogManager restarted = start(dirs);

    // Then
    assertThat(restarted.isLogDirOffline(broken)).isTrue();
    PartitionLog survivor = restarted.getLog(new TopicPartition("orders", 1)).orElseThrow();
    assertThat(survivor.read(0, 1024, 3, true).slice().sizeInBytes()).isPositive();
    restarted.close();
    assertThat(broken.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
  }

  @Test
  void startFailsWhenEveryDirectoryIsOffline() throws Exception {
    // Given
    Path dir = root.resolve("a");
    LogManager manager = start(List.of(dir));
    PartitionLog log = manager.getOrCreateLog(new TopicPartition("orders", 0));
    log.appendAsLeader(Batches.records(3, 1L), 0);
    Path logDir = log.dir();
    manager.close();
    Path segment = logDir.resolve("00000000000000000000.log");
    Files.delete(segment);
    block(segment);

    // When / Then
    assertThatThrownBy(() -> start(List.of(dir))).isInstanceOf(IOException.class);
  }
}
