package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.SegmentFiles;
import io.brook.storage.testing.LogFixture;
import io.brook.storage.txn.AbortedTxn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cleaned segment replacing several keeps their aborted-transaction index entries. */
class CompactionKeepsAbortsTest {
  @TempDir Path root;

  @Test
  void cleanedSegmentCarriesTheAbortsOfTheSegmentsItReplaces() throws Exception {
    // Given: an aborted transaction in the first segment, newer values of its keys later
    LogFixture fixture =
        new LogFixture(root)
            .config(LogConfig.builder().compacted(true).fileDeleteDelayMs(0).build());
    long now = fixture.time().milliseconds();
    AbortedTxn expected;
    try (PartitionLog log = fixture.open()) {
      log.appendAsLeader(
          MemoryRecords.withTransactionalRecords(
              Compression.NONE, 5L, (short) 0, 0, keyed("k1", now), keyed("k2", now)),
          0); // 0-1
      log.appendAsCoordinator(
          MemoryRecords.withEndTransactionMarker(
              0L,
              now,
              RecordBatch.NO_PARTITION_LEADER_EPOCH,
              5L,
              (short) 0,
              new EndTransactionMarker(ControlRecordType.ABORT, 0)),
          0); // 2
      log.roll();
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, keyed("k1", now)), 0); // 3
      log.roll();
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, keyed("k2", now)), 0); // 4
      log.roll();
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, keyed("k3", now)), 0); // 5
      log.updateHighWatermark(log.logEndOffset());
      expected = log.collectAbortedTransactions(0, 6).get(0);
      int segmentsBefore = log.segments().size();

      // When
      new Cleaner(
              new OffsetMap(1 << 20, 0.9),
              16 * 1024,
              new Throttler(Double.MAX_VALUE, fixture.time()),
              fixture.time(),
              () -> false)
          .clean(log, 0);

      // Then
      assertThat(log.segments().size()).isLessThan(segmentsBefore);
      assertThat(log.collectAbortedTransactions(0, 6)).containsExactly(expected);
    }
    assertThat(txnIndexFiles(fixture.dir())).hasSize(1);
    try (PartitionLog log = fixture.open(0, 0, 6, true)) {
      assertThat(log.collectAbortedTransactions(0, 6)).containsExactly(expected);
    }
  }

  @Test
  void abortedDataIsDroppedAndNeverShadowsTheCommittedValue() throws Exception {
    // Given: k1 committed, then an aborted k1 and a committed transactional k2
    LogFixture fixture =
        new LogFixture(root)
            .config(LogConfig.builder().compacted(true).fileDeleteDelayMs(0).build());
    long now = fixture.time().milliseconds();
    try (PartitionLog log = fixture.open()) {
      log.appendAsLeader(
          MemoryRecords.withRecords(Compression.NONE, keyed("k1", "committed", now)), 0); // 0
      log.appendAsLeader(
          MemoryRecords.withTransactionalRecords(
              Compression.NONE, 5L, (short) 0, 0, keyed("k1", "aborted", now)),
          0); // 1
      log.appendAsCoordinator(marker(5L, ControlRecordType.ABORT, now), 0); // 2
      log.appendAsLeader(
          MemoryRecords.withTransactionalRecords(
              Compression.NONE, 6L, (short) 0, 0, keyed("k2", "kept", now)),
          0); // 3
      log.appendAsCoordinator(marker(6L, ControlRecordType.COMMIT, now), 0); // 4
      log.roll();
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, keyed("k3", "x", now)), 0);
      log.roll();
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, keyed("k4", "y", now)), 0);
      log.updateHighWatermark(log.logEndOffset());

      // When
      cleaner(fixture).clean(log, 0);

      // Then
      List<KeyedRecords.Entry> data =
          KeyedRecords.readAll(log).stream()
              .filter(e -> e.offset() != 2 && e.offset() != 4) // the markers
              .toList();
      assertThat(data)
          .containsExactly(
              new KeyedRecords.Entry(0, "k1", "committed"),
              new KeyedRecords.Entry(3, "k2", "kept"),
              new KeyedRecords.Entry(5, "k3", "x"),
              new KeyedRecords.Entry(6, "k4", "y"));
      assertThat(log.collectAbortedTransactions(0, 7)).hasSize(1);
    }
  }

  private static Cleaner cleaner(LogFixture fixture) {
    return new Cleaner(
        new OffsetMap(1 << 20, 0.9),
        16 * 1024,
        new Throttler(Double.MAX_VALUE, fixture.time()),
        fixture.time(),
        () -> false);
  }

  private static MemoryRecords marker(long producerId, ControlRecordType type, long now) {
    return MemoryRecords.withEndTransactionMarker(
        0L,
        now,
        RecordBatch.NO_PARTITION_LEADER_EPOCH,
        producerId,
        (short) 0,
        new EndTransactionMarker(type, 0));
  }

  private static SimpleRecord keyed(String key, String value, long now) {
    return new SimpleRecord(
        now, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void nothingFromAnOpenTransactionOnIsCleanable() throws Exception {
    LogFixture fixture =
        new LogFixture(root)
            .config(LogConfig.builder().compacted(true).fileDeleteDelayMs(0).build());
    long now = fixture.time().milliseconds();
    try (PartitionLog log = fixture.open()) {
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, keyed("k0", now)), 0); // 0
      log.roll();
      log.appendAsLeader(
          MemoryRecords.withTransactionalRecords(
              Compression.NONE, 5L, (short) 0, 0, keyed("k1", now)),
          0); // 1, open
      log.roll();
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, keyed("k1", now)), 0); // 2
      log.roll();
      log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, keyed("k2", now)), 0); // 3
      log.updateHighWatermark(log.logEndOffset());

      CleanableRange range = CleanableRange.of(log, List.copyOf(log.segments()), 0, now);

      assertThat(log.lastStableOffset()).isEqualTo(1);
      assertThat(range.uncleanableOffset()).isEqualTo(1);
    }
  }

  private static SimpleRecord keyed(String key, long now) {
    return new SimpleRecord(
        now, key.getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
  }

  private static List<Path> txnIndexFiles(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(SegmentFiles.TXN_INDEX_SUFFIX))
          .toList();
    }
  }
}
