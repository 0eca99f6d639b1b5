package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogCleanerTest {
  @TempDir Path root;

  private LogFixture fixture;
  private PartitionLog log;

  private LogCleaner cleanerFor(LogConfig config) {
    fixture = new LogFixture(root).config(config);
    log = fixture.open();
    return new LogCleaner(CleanerConfig.DEFAULTS.withThreads(0), List.of(root), this::logs, time());
  }

  private List<PartitionLog> logs() {
    return List.of(log);
  }

  private org.apache.kafka.common.utils.Time time() {
    return fixture.time();
  }

  /**
   * {@code versions} batches over {@code keys} keys, one segment each; tombstones last if asked.
   */
  private void write(int keys, int versions, boolean tombstones) {
    for (int v = 0; v < versions; v++) {
      List<Map.Entry<String, String>> batch = new ArrayList<>();
      for (int k = 0; k < keys; k++) {
        String value = tombstones && v == versions - 1 ? null : "v" + v;
        batch.add(new AbstractMap.SimpleEntry<>("k" + k, value));
      }
      log.appendAsLeader(
          KeyedRecords.batch(batch, fixture.time().milliseconds(), CompressionType.NONE), 0);
      log.roll();
    }
    log.updateHighWatermark(log.logEndOffset());
  }

  private record HalfCleaned(LogCleaner cleaner, Cleaner worker) {}

  /**
   * Ten keys written and cleaned, then written again: half the cleanable bytes dirty, under a dirty
   * ratio no log reaches and a maximum compaction lag of one minute.
   */
  private HalfCleaned halfCleanedWithOneMinuteMaxLag() {
    LogCleaner cleaner =
        cleanerFor(compacted().minCleanableDirtyRatio(1.0).maxCompactionLagMs(60_000).build());
    write(10, 1, false);
    Cleaner worker = cleaner.newCleaner();
    cleaner.cleanOnce(worker);
    write(10, 1, false);
    return new HalfCleaned(cleaner, worker);
  }

  private static LogConfig.Builder compacted() {
    return LogConfig.builder().compacted(true).fileDeleteDelayMs(0);
  }

  @Test
  void cleansADirtyEnoughLogOnceAndCheckpointsHowFar() {
    // Given
    LogCleaner cleaner = cleanerFor(compacted().build());
    write(50, 4, false);
    Cleaner worker = cleaner.newCleaner();

    // When / Then: dirty ratio 1.0 >= 0.5, then nothing left to clean
    assertThat(cleaner.cleanOnce(worker)).isTrue();
    assertThat(cleaner.firstDirtyOffsets()).containsEntry(LogFixture.TP, 200L);
    assertThat(cleaner.cleanOnce(worker)).isFalse();
    assertThat(KeyedRecords.readAll(log)).hasSize(50);

    // And a new cleaner (a restart) starts from the checkpoint
    LogCleaner restarted =
        new LogCleaner(CleanerConfig.DEFAULTS, List.of(root), this::logs, fixture.time());
    assertThat(restarted.firstDirtyOffsets()).containsEntry(LogFixture.TP, 200L);
  }

  @Test
  void waitsForTheDirtyRatioUnlessMaxCompactionLagPassed() {
    // Given: a dirty ratio no log reaches, and a maximum lag of one minute
    HalfCleaned given = halfCleanedWithOneMinuteMaxLag();
    LogCleaner cleaner = given.cleaner();
    Cleaner worker = given.worker();

    // Then: the clean half makes the ratio 0.5 < 1.0
    assertThat(cleaner.cleanOnce(worker)).isFalse();

    // When the oldest dirty record passes max.compaction.lag.ms
    fixture.time().advance(60_001);

    // Then
    assertThat(cleaner.cleanOnce(worker)).isTrue();
    assertThat(KeyedRecords.readAll(log)).hasSize(10);
  }

  @Test
  void reportsHowFarBehindItIs() {
    // Given a log half cleaned, half dirty, with a maximum lag of one minute
    HalfCleaned given = halfCleanedWithOneMinuteMaxLag();
    LogCleaner cleaner = given.cleaner();
    Cleaner worker = given.worker();

    // Then half its cleanable bytes are dirty, and not for too long yet
    assertThat(cleaner.lag().maxDirtyPercent()).isCloseTo(50.0, within(5.0));
    assertThat(cleaner.lag().maxCompactionDelaySecs()).isZero();

    // When its oldest dirty record is five seconds past the maximum lag
    fixture.time().advance(65_000);

    // Then
    assertThat(cleaner.lag().maxCompactionDelaySecs()).isEqualTo(5);

    // And once cleaned, nothing is behind
    assertThat(cleaner.cleanOnce(worker)).isTrue();
    assertThat(cleaner.lag()).isEqualTo(new LogCleaner.Lag(0, 0));
  }

  @Test
  void removesExpiredTombstonesEvenWhenNothingIsDirty() {
    // Given: every key deleted; the first pass keeps the tombstones
    LogCleaner cleaner = cleanerFor(compacted().deleteRetentionMs(1_000).build());
    write(20, 3, true);
    Cleaner worker = cleaner.newCleaner();
    assertThat(cleaner.cleanOnce(worker)).isTrue();
    assertThat(KeyedRecords.readAll(log)).hasSize(20).allMatch(e -> e.value() == null);
    assertThat(cleaner.cleanOnce(worker)).isFalse();

    // When
    fixture.time().advance(1_001);

    // Then
    assertThat(cleaner.cleanOnce(worker)).isTrue();
    assertThat(KeyedRecords.readAll(log)).isEmpty();
    assertThat(cleaner.cleanOnce(worker)).isFalse();
  }

  @Test
  void ignoresLogsWithoutTheCompactPolicy() {
    // Given
    LogCleaner cleaner = cleanerFor(LogConfig.builder().retentionMs(-1).build());
    write(10, 3, false);

    // Then
    assertThat(cleaner.cleanOnce(cleaner.newCleaner())).isFalse();
  }
}
