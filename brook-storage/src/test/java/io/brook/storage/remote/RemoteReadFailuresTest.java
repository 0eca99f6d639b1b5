package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogCapture;
import io.brook.storage.testing.LogFixture;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator learns from the log that a partition's remote reads fail (consumers are only answered
 * KAFKA_STORAGE_ERROR, which they retry without end): once when they start failing, at most once a
 * minute while they go on failing, and once when they work again.
 */
class RemoteReadFailuresTest {
  private static final Uuid TOPIC_ID = Uuid.fromString("f0Ja8ZCyR3yH1n4YqS2aYw");
  private static final TopicIdPartition TP = new TopicIdPartition(TOPIC_ID, LogFixture.TP);

  @TempDir Path root;

  @Test
  void aSegmentObjectDeletedFromTheStoreIsToldOnceAndEveryMinuteItGoesOnFailing() throws Exception {
    // Given: a log whose first segments were copied to a store in a local directory, and the log
    // object of the first of them deleted from the store by hand
    LogFixture fixture =
        new LogFixture(root.resolve("data"))
            .config(
                LogConfig.builder()
                    .segmentBytes(1500)
                    .remoteStorageEnable(true)
                    .retentionMs(-1)
                    .localRetentionMs(-2)
                    .build());
    PartitionLog log = fixture.open();
    for (int i = 0; i < 4; i++) {
      log.appendAsLeader(Batches.sized(1, 1024, fixture.time().milliseconds(), i), 0);
    }
    log.updateHighWatermark(4);
    LocalFsSegmentStore store = new LocalFsSegmentStore(root.resolve("store"));
    try (LogCapture captured = LogCapture.of(RemoteReadFailures.class);
        RemoteLogManager manager =
            new RemoteLogManager(
                store,
                new RemoteLogManagerConfig(
                    10,
                    1,
                    1,
                    10,
                    root.resolve("cache"),
                    1 << 20,
                    500,
                    root.resolve("chunks"),
                    0,
                    1),
                fixture.time())) {
      manager.topicIds(tp -> Optional.of(TOPIC_ID));
      manager.start(() -> List.of(new RemoteLogManager.TieredLog(log, true, 0, () -> true)));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> TieredPartition.readManifest(store, TP).segments().size() >= 3);
      assertThat(manager.read(log, 0, 1 << 20, 4, true, false).get().records().sizeInBytes())
          .as("the first remote segment reads before its object goes")
          .isPositive();
      deleteLogObjectOfFirstSegment(store);

      // When: a consumer fetches the first offset again and again, for more than a minute
      ManualTime time = fixture.time();
      for (int i = 0; i < 5; i++) {
        assertThat(storageError(manager, log)).isEqualTo(StorageError.KAFKA_STORAGE_ERROR);
        time.advance(1_000);
      }
      time.advance(RemoteReadFailures.WARN_INTERVAL_MS);
      for (int i = 0; i < 3; i++) {
        assertThat(storageError(manager, log)).isEqualTo(StorageError.KAFKA_STORAGE_ERROR);
      }
      // And then reads from the next segment, whose objects are all there
      assertThat(manager.read(log, 1, 1 << 20, 4, true, false).get().records().sizeInBytes())
          .isPositive();

      // Then: one warning when the reads began to fail, naming the missing object; one a minute
      // later counting the failures since; one line when a read worked again
      List<LogCapture.Line> lines = captured.lines();
      assertThat(lines)
          .extracting(LogCapture.Line::level)
          .containsExactly(Level.WARN, Level.WARN, Level.INFO);
      assertThat(lines.get(0).message())
          .contains("missing from the store")
          .contains("KAFKA_STORAGE_ERROR")
          .contains("topicPartition=" + LogFixture.TP)
          .contains("fetchOffset=0");
      assertThat(lines.get(0).thrown()).isInstanceOf(NoSuchFileException.class);
      assertThat(lines.get(1).message())
          .contains("still fails")
          .contains("failuresSinceLastWarning=5")
          .contains("failures=6");
      assertThat(lines.get(2).message())
          .contains("works again")
          .contains("topicPartition=" + LogFixture.TP)
          .contains("failures=8");
    } finally {
      log.close();
    }
  }

  @Test
  void eachFailingPartitionIsToldOfOnItsOwnAndForgottenWhenItLeaves() {
    ManualTime time = new ManualTime();
    RemoteReadFailures failures = new RemoteReadFailures(time);
    TopicPartition a = new TopicPartition("a", 0);
    TopicPartition b = new TopicPartition("b", 0);
    try (LogCapture captured = LogCapture.of(RemoteReadFailures.class)) {
      failures.failed(a, 10, new IOException("503 Slow Down"));
      failures.failed(b, 20, new IOException("503 Slow Down"));
      failures.failed(a, 10, new IOException("503 Slow Down"));
      assertThat(failures.failingPartitions()).isEqualTo(2);

      failures.forget(b);
      failures.succeeded(b); // nothing to tell: b left
      failures.succeeded(a);

      assertThat(failures.failingPartitions()).isZero();
      assertThat(captured.lines())
          .extracting(LogCapture.Line::level, l -> l.message().contains("remote store failed"))
          .containsExactly(
              tuple(Level.WARN, true), tuple(Level.WARN, true), tuple(Level.INFO, false));
      assertThat(captured.lines().get(2).message()).contains("topicPartition=a-0", "failures=2");
    }
  }

  private static StorageError storageError(RemoteLogManager manager, PartitionLog log)
      throws InterruptedException {
    try {
      manager.read(log, 0, 1 << 20, 4, true, false).get();
      throw new AssertionError("the read of a segment whose object is gone succeeded");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(StorageException.class);
      return ((StorageException) e.getCause()).error();
    }
  }

  /**
   * Deletes through the store by the key the manifest names: a walk of the store's directory would
   * race the copier, whose temporary files come and go while later segments upload.
   */
  private static void deleteLogObjectOfFirstSegment(LocalFsSegmentStore store) throws IOException {
    RemoteSegment first =
        TieredPartition.readManifest(store, TP).segments().stream()
            .filter(s -> s.baseOffset() == 0)
            .findFirst()
            .orElseThrow();
    String key = store.key(TP, first, RemoteFileType.LOG);
    assertThat(store.root().resolve(key)).exists();
    store.delete(key);
  }
}
