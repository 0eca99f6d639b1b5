package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactionTest {
  private static final long DAY = 24 * 3_600_000L;
  private static final int KEYS = 1_000;
  private static final int VERSIONS = 20;
  private static final int TOMBSTONES = 100;

  @TempDir Path root;

  private LogFixture fixture;

  private PartitionLog openCompacted() {
    fixture =
        new LogFixture(root)
            .config(
                LogConfig.builder()
                    .compacted(true)
                    .segmentBytes(64 * 1024)
                    .deleteRetentionMs(DAY)
                    .fileDeleteDelayMs(0)
                    .build());
    return fixture.open();
  }

  private Cleaner cleaner(int mapBytes) {
    return new Cleaner(
        new OffsetMap(mapBytes, 0.9),
        16 * 1024,
        new Throttler(Double.MAX_VALUE, fixture.time()),
        fixture.time(),
        () -> false);
  }

  /** 1,000 keys × 20 versions in batches of 100 (LZ4 every other batch), then 100 tombstones. */
  private void fill(PartitionLog log) {
    long now = fixture.time().milliseconds();
    List<Map.Entry<String, String>> pending = new ArrayList<>();
    int batch = 0;
    for (int version = 0; version < VERSIONS; version++) {
      for (int key = 0; key < KEYS; key++) {
        pending.add(Map.entry("key-" + key, "value-" + key + "-" + version));
        if (pending.size() == 100) {
          CompressionType type = batch++ % 2 == 0 ? CompressionType.NONE : CompressionType.LZ4;
          log.appendAsLeader(KeyedRecords.batch(pending, now, type), 0);
          pending.clear();
        }
      }
    }
    List<Map.Entry<String, String>> tombstones = new ArrayList<>();
    for (int key = 0; key < TOMBSTONES; key++) {
      tombstones.add(new java.util.AbstractMap.SimpleEntry<>("key-" + key, null));
    }
    log.appendAsLeader(KeyedRecords.batch(tombstones, now, CompressionType.NONE), 0);
    log.roll();
    log.updateHighWatermark(log.logEndOffset());
  }

  @Test
  void keepsExactlyTheLatestValuePerLiveKeyAndDropsTombstonesAfterDeleteRetention()
      throws Exception {
    // Given
    PartitionLog log = openCompacted();
    fill(log);
    int segmentsBefore = log.segments().size();
    long end = log.logEndOffset();

    // When
    Cleaner.Result first = cleaner(1 << 20).clean(log, 0);

    // Then: one record per key, the latest, in increasing offsets; tombstones still there
    List<KeyedRecords.Entry> read = KeyedRecords.readAll(log);
    assertThat(read).hasSize(KEYS);
    assertThat(read).isSortedAccordingTo((a, b) -> Long.compare(a.offset(), b.offset()));
    for (KeyedRecords.Entry e : read) {
      int key = Integer.parseInt(e.key().substring(4));
      if (key < TOMBSTONES) {
        assertThat(e.value()).isNull();
      } else {
        assertThat(e.value()).isEqualTo("value-" + key + "-" + (VERSIONS - 1));
      }
    }
    assertThat(first.cleanedUpTo()).isEqualTo(end);
    assertThat(log.logEndOffset()).isEqualTo(end);
    assertNoCleanerLeftovers(log);

    // When: delete.retention.ms passes and the cleaner runs again
    fixture.time().advance(DAY + 1);
    cleaner(1 << 20).clean(log, first.cleanedUpTo());

    // Then: the tombstones are gone, the live keys untouched
    List<KeyedRecords.Entry> after = KeyedRecords.readAll(log);
    assertThat(after).hasSize(KEYS - TOMBSTONES);
    assertThat(after).allMatch(e -> e.value() != null);
    assertThat(after)
        .isEqualTo(read.subList(0, read.size()).stream().filter(e -> e.value() != null).toList());
    assertThat(log.logEndOffset()).isEqualTo(end);
  }

  @Test
  void aMapTooSmallForAllKeysCleansInSeveralPassesWithTheSameResult() throws Exception {
    // Given: a key map of 20,000 slots × 0.9, so about 180 keys... per pass (less than 1,000)
    PartitionLog log = openCompacted();
    fill(log);
    Cleaner small = cleaner(OffsetMap.SLOT_BYTES * 200);

    // When
    long dirty = 0;
    int passes = 0;
    while (dirty < log.segments().stream().reduce((a, b) -> b).orElseThrow().baseOffset()) {
      dirty = small.clean(log, dirty).cleanedUpTo();
      passes++;
    }

    // Then
    assertThat(passes).isGreaterThan(5);
    Map<String, KeyedRecords.Entry> latest = KeyedRecords.latestPerKey(KeyedRecords.readAll(log));
    assertThat(latest).hasSize(KEYS);
    assertThat(KeyedRecords.readAll(log)).hasSize(KEYS);
    for (int key = TOMBSTONES; key < KEYS; key++) {
      assertThat(latest.get("key-" + key).value()).isEqualTo("value-" + key + "-" + (VERSIONS - 1));
    }
  }

  @Test
  void theActiveSegmentAndRecordsYoungerThanMinCompactionLagAreNeverCleaned() throws Exception {
    // Given: two versions of one key in the active segment
    PartitionLog log = openCompacted();
    long now = fixture.time().milliseconds();
    log.appendAsLeader(
        KeyedRecords.batch(
            List.of(Map.entry("a", "1"), Map.entry("a", "2")), now, CompressionType.NONE),
        0);
    log.updateHighWatermark(log.logEndOffset());

    // Then
    assertThat(cleaner(1 << 16).clean(log, 0)).isNull();

    // And once rolled, but under min.compaction.lag.ms, still nothing is cleaned
    log.roll();
    log.updateConfig(log.config().toBuilder().minCompactionLagMs(60_000).build());
    assertThat(cleaner(1 << 16).clean(log, 0)).isNull();
    fixture.time().advance(60_001);
    assertThat(cleaner(1 << 16).clean(log, 0)).isNotNull();
    assertThat(KeyedRecords.readAll(log))
        .extracting(KeyedRecords.Entry::value)
        .containsExactly("2");
  }

  @Test
  void theCleanedLogReopensAfterACleanAndAnUncleanShutdown() throws Exception {
    // Given
    PartitionLog log = openCompacted();
    fill(log);
    cleaner(1 << 20).clean(log, 0);
    List<KeyedRecords.Entry> expected = KeyedRecords.readAll(log);
    List<Long> bases = log.segments().stream().map(LogSegment::baseOffset).toList();
    long end = log.logEndOffset();
    log.close();

    // When / Then
    PartitionLog reopened = fixture.open(0, 0, end, true);
    assertThat(KeyedRecords.readAll(reopened)).isEqualTo(expected);
    reopened.close();
    PartitionLog recovered = fixture.openAfterCrash(0);
    recovered.updateHighWatermark(end);
    assertThat(KeyedRecords.readAll(recovered)).isEqualTo(expected);
    assertThat(recovered.segments().stream().map(LogSegment::baseOffset).toList()).isEqualTo(bases);
    recovered.close();
  }

  @Test
  void theLastBatchOfAnActiveProducerSurvivesEmptySoDuplicatesAreStillDetected() throws Exception {
    // Given: an idempotent producer's batch whose records a later write supersedes
    PartitionLog log = openCompacted();
    long now = fixture.time().milliseconds();
    log.appendAsLeader(idempotent(7L, 0, now, "a", "b"), 0);
    log.appendAsLeader(
        KeyedRecords.batch(
            List.of(Map.entry("a", "new"), Map.entry("b", "new")), now, CompressionType.NONE),
        0);
    log.roll();
    log.updateHighWatermark(log.logEndOffset());

    // When
    cleaner(1 << 16).clean(log, 0);
    log.close();
    // Without snapshots, producer state can only come back from the batches in the log.
    try (Stream<Path> files = Files.list(log.dir())) {
      for (Path snapshot : files.filter(p -> p.toString().endsWith(".snapshot")).toList()) {
        Files.delete(snapshot);
      }
    }
    log = fixture.openAfterCrash(0);
    log.updateHighWatermark(log.logEndOffset());

    // Then: its records are gone, but its batch is kept empty and a retry is a duplicate
    assertThat(KeyedRecords.readAll(log)).extracting(KeyedRecords.Entry::value).containsOnly("new");
    assertThat(log.appendAsLeader(idempotent(7L, 0, now, "a", "b"), 0).duplicate()).isTrue();
    assertThat(log.appendAsLeader(idempotent(7L, 2, now, "c"), 0).duplicate()).isFalse();
    log.close();
  }

  private static org.apache.kafka.common.record.internal.MemoryRecords idempotent(
      long producerId, int baseSequence, long timestamp, String... keys) {
    org.apache.kafka.common.record.internal.SimpleRecord[] records =
        new org.apache.kafka.common.record.internal.SimpleRecord[keys.length];
    for (int i = 0; i < keys.length; i++) {
      records[i] =
          new org.apache.kafka.common.record.internal.SimpleRecord(
              timestamp,
              keys[i].getBytes(java.nio.charset.StandardCharsets.UTF_8),
              "old".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    return org.apache.kafka.common.record.internal.MemoryRecords.withIdempotentRecords(
        org.apache.kafka.common.compress.Compression.NONE,
        producerId,
        (short) 0,
        baseSequence,
        records);
  }

  private static void assertNoCleanerLeftovers(PartitionLog log) throws Exception {
    try (Stream<Path> files = Files.list(log.dir())) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.endsWith(".cleaned") || n.endsWith(".swap") || n.endsWith(".deleted"));
    }
  }
}
