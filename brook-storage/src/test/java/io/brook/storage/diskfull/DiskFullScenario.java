package io.brook.storage.diskfull;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Time;

/**
 * Runs inside a private mount namespace on a tiny tmpfs (see {@link DiskFullIT}): fills the disk
 * through a partition log, checks that the failing append is refused with KAFKA_STORAGE_ERROR and
 * takes the partition offline, then frees space, reopens the log as after a crash and checks that
 * exactly the acknowledged batches are there. Prints {@code OK ...} or throws.
 */
public final class DiskFullScenario {
  private static final TopicPartition TP = new TopicPartition("full", 0);

  private DiskFullScenario() {}

  public static void main(String[] args) throws Exception {
    Path mount = Path.of(args[0]);
    Path ballast = mount.resolve("ballast");
    Files.write(ballast, new byte[128 * 1024]);
    LogConfig config =
        LogConfig.builder().segmentIndexBytes(1024).indexIntervalBytes(64 * 1024).build();
    Path dir = mount.resolve("full-0");
    PartitionLog log = PartitionLog.open(dir, config, LogOpenOptions.defaults(TP, Time.SYSTEM));
    ByteArrayOutputStream acknowledged = new ByteArrayOutputStream();
    StorageException failure = null;
    for (int i = 0; i < 10_000 && failure == null; i++) {
      MemoryRecords batch = io.brook.storage.testing.Batches.sized(4, 2_000, 1L, i);
      try {
        log.appendAsLeader(batch, 0);
        acknowledged.writeBytes(io.brook.storage.testing.Batches.bytes(batch));
      } catch (StorageException e) {
        failure = e;
      }
    }
    check(failure != null, "the disk never filled up");
    check(failure.error() == StorageError.KAFKA_STORAGE_ERROR, "unexpected error " + failure);
    check(log.isOffline(), "the log is not offline after the failed append");
    expectStorageError(
        () -> log.appendAsLeader(io.brook.storage.testing.Batches.records(1, 1L), 0));
    expectStorageError(() -> log.read(0, 1000, 1, false));
    log.close();

    Files.delete(ballast);
    PartitionLog reopened =
        PartitionLog.open(
            dir, config, LogOpenOptions.defaults(TP, Time.SYSTEM).withCheckpoints(0, 0, 0, false));
    byte[] stored = io.brook.storage.testing.LogReads.bytes(reopened);
    check(
        Arrays.equals(stored, acknowledged.toByteArray()),
        "stored bytes differ from acknowledged: " + stored.length + " vs " + acknowledged.size());
    reopened.appendAsLeader(io.brook.storage.testing.Batches.records(1, 1L), 0);
    System.out.println(
        "OK acknowledgedBytes=" + acknowledged.size() + " logEndOffset=" + reopened.logEndOffset());
    reopened.close();
  }

  private static void expectStorageError(Runnable action) {
    try {
      action.run();
    } catch (StorageException e) {
      check(e.error() == StorageError.KAFKA_STORAGE_ERROR, "unexpected error " + e);
      return;
    }
    throw new AssertionError("an offline log accepted an operation");
  }

  private static void check(boolean condition, String message) {
    if (!condition) {
      throw new AssertionError(message);
    }
  }
}
