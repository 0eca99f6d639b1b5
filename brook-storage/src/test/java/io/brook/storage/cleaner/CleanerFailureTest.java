package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.storage.LogDirFailureChannel;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.LogOpenOptions;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.ManualTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pass that throws anything (an Error included) marks only its partition uncleanable; the thread
 * lives on and cleans the other partitions. An I/O error takes the directory offline instead.
 */
class CleanerFailureTest {
  @TempDir Path root;

  private final ManualTime time = new ManualTime();
  private final LogDirFailureChannel dirFailures = new LogDirFailureChannel();
  private final List<PartitionLog> logs = new ArrayList<>();
  private LogCleaner cleaner;

  @AfterEach
  void close() throws IOException {
    if (cleaner != null) {
      cleaner.close();
    }
    for (PartitionLog log : logs) {
      log.close();
    }
    dirFailures.close();
  }

  private PartitionLog open(String topic) throws IOException {
    TopicPartition tp = new TopicPartition(topic, 0);
    PartitionLog log =
        PartitionLog.open(
            root.resolve(topic + "-0"),
            LogConfig.builder().compacted(true).fileDeleteDelayMs(0).build(),
            LogOpenOptions.defaults(tp, time).withDirFailures(dirFailures));
    logs.add(log);
    return log;
  }

  /** {@code versions} versions of 20 keys, a segment each. */
  private void write(PartitionLog log, int versions) {
    for (int v = 0; v < versions; v++) {
      List<Map.Entry<String, String>> batch = new ArrayList<>();
      for (int k = 0; k < 20; k++) {
        batch.add(new AbstractMap.SimpleEntry<>("k" + k, "v" + v));
      }
      log.appendAsLeader(KeyedRecords.batch(batch, time.milliseconds(), CompressionType.NONE), 0);
      log.roll();
    }
    log.updateHighWatermark(log.logEndOffset());
  }

  private LogCleaner cleaner(int threads) {
    return new LogCleaner(
        new CleanerConfig(true, threads, 4L << 20, 64 << 10, 0.9, Double.MAX_VALUE, 10),
        List.of(root),
        () -> List.copyOf(logs),
        time,
        dirFailures);
  }

  @Test
  void anErrorMarksOnlyThatPartitionUncleanable() throws IOException {
    // Given: two dirty compacted logs, the first of which a pass cannot clean
    PartitionLog poisoned = open("poisoned");
    PartitionLog healthy = open("healthy");
    write(poisoned, 4);
    write(healthy, 4);
    cleaner = cleaner(0);
    Cleaner worker = cleaner.newCleaner();
    LogCleaner.Pass pass =
        (log, firstDirty) -> {
          if (log == poisoned) {
            throw new StackOverflowError("deeply nested batch");
          }
          return worker.clean(log, firstDirty);
        };

    // When
    boolean first = cleaner.cleanOnce(pass);
    boolean second = cleaner.cleanOnce(pass);
    boolean third = cleaner.cleanOnce(pass);

    // Then: the poisoned log is skipped from then on, the healthy one is cleaned
    assertThat(first).isFalse();
    assertThat(second).isTrue();
    assertThat(third).isFalse();
    assertThat(cleaner.uncleanablePartitions()).containsExactly(poisoned.topicPartition());
    assertThat(cleaner.uncleanablePartitionsCount(root)).isEqualTo(1);
    assertThat(cleaner.uncleanableBytes(root)).isPositive();
    assertThat(cleaner.firstDirtyOffsets()).containsKey(healthy.topicPartition());
    assertThat(KeyedRecords.readAll(healthy)).hasSize(20);
    assertThat(dirFailures.offlineCount()).isZero();

    // And deleting the log forgets it
    cleaner.remove(poisoned.topicPartition());
    assertThat(cleaner.uncleanablePartitionsCount(root)).isZero();
  }

  @Test
  void deletingALogUnderAPassStopsThePassNotTheDirectory() throws Exception {
    // Given: a cleaner thread inside a pass over a log
    PartitionLog doomed = open("doomed");
    write(doomed, 4);
    cleaner = cleaner(1);
    java.util.concurrent.CountDownLatch inPass = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch goOn = new java.util.concurrent.CountDownLatch(1);
    cleaner.setPassHook(
        real ->
            (log, firstDirty) -> {
              inPass.countDown();
              try {
                goOn.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
              }
              return real.clean(log, firstDirty);
            });
    cleaner.startup();
    assertThat(inPass.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

    // When: the log is deleted as LogManager deletes one: out of the cleaner's list, the pass
    // stopped, then the files removed
    logs.remove(doomed);
    Thread deleter =
        new Thread(
            () -> {
              cleaner.abortCleaning(doomed.topicPartition());
              try {
                doomed.delete();
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    deleter.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cleaner.isAbortRequested(doomed.topicPartition()));
    goOn.countDown();
    deleter.join(30_000);

    // Then: the pass stopped before the files went, and the directory stays online
    assertThat(deleter.isAlive()).isFalse();
    assertThat(dirFailures.offlineCount()).isZero();
    assertThat(cleaner.firstDirtyOffsets()).doesNotContainKey(doomed.topicPartition());
    assertThat(java.nio.file.Files.exists(root.resolve("doomed-0"))).isFalse();
  }

  @Test
  void aCleanerThreadSurvivesAnOutOfMemoryErrorAndKeepsCleaning() throws IOException {
    // Given: a running cleaner thread whose pass over one log throws an Error
    PartitionLog poisoned = open("poisoned");
    PartitionLog healthy = open("healthy");
    write(poisoned, 4);
    write(healthy, 4);
    cleaner = cleaner(1);
    AtomicInteger errors = new AtomicInteger();
    cleaner.setPassHook(
        real ->
            (log, firstDirty) -> {
              if (log == poisoned) {
                errors.incrementAndGet();
                throw new OutOfMemoryError("simulated");
              }
              return real.clean(log, firstDirty);
            });

    // When
    cleaner.startup();

    // Then: the healthy log is cleaned, the poisoned one tried once
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cleaner.firstDirtyOffsets().containsKey(healthy.topicPartition()));
    assertThat(cleaner.uncleanablePartitions()).containsExactly(poisoned.topicPartition());

    // And when the healthy log gets dirty again, the same thread cleans it again
    long cleanedTo = cleaner.firstDirtyOffsets().get(healthy.topicPartition());
    write(healthy, 4);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> cleaner.firstDirtyOffsets().get(healthy.topicPartition()) > cleanedTo);
    assertThat(errors).hasValue(1);
  }

  @Test
  void anIoErrorTakesTheDirectoryOffline() throws IOException {
    // Given: the cleaner checkpoint of the directory cannot be written
    PartitionLog log = open("orders");
    write(log, 4);
    Path tmp = root.resolve(LogCleaner.CHECKPOINT_FILE + ".tmp");
    Files.createDirectories(tmp);
    Files.writeString(tmp.resolve("in-the-way"), "x");
    cleaner = cleaner(0);

    // When
    cleaner.cleanOnce(cleaner.newCleaner());

    // Then
    assertThat(dirFailures.isOffline(root)).isTrue();
    assertThat(cleaner.uncleanablePartitions()).isEmpty();
  }
}
