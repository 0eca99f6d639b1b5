package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.LogFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transaction markers leave a compacted log as Kafka's cleaner lets them: only once no batch of
 * their transaction is left, and only after {@code delete.retention.ms} from the pass that found
 * them removable; an abort's index entry goes with its last data, never leaving a consumer told of
 * an abort whose marker is gone.
 */
class MarkerRemovalTest {
  private static final long DELETE_RETENTION_MS = 60_000;
  private static final long TXN_PRODUCER = 5L;
  private static final long OTHER_TXN_PRODUCER = 6L;

  @TempDir java.nio.file.Path root;

  @Test
  void aCommitMarkerGoesOncePastTheHorizonAfterItsDataWasCompactedAway() throws Exception {
    LogFixture fixture = fixture();
    try (PartitionLog log = fixture.open()) {
      long now = fixture.time().milliseconds();
      txnData(log, TXN_PRODUCER, "k1", now); // 0
      marker(log, TXN_PRODUCER, ControlRecordType.COMMIT, now); // 1
      log.roll();
      plain(log, "k1", now); // 2: supersedes the transaction's only record
      // The producer's next transaction: its last batch (kept for its sequence) is not at 0.
      txnData(log, TXN_PRODUCER, "k2", now); // 3
      marker(log, TXN_PRODUCER, ControlRecordType.COMMIT, now); // 4
      log.roll();
      plain(log, "k9", now); // 5
      log.updateHighWatermark(log.logEndOffset());

      Cleaner cleaner = cleaner(fixture);
      cleaner.clean(log, 0);
      assertThat(controlOffsets(log)).as("first pass: its data was there").containsExactly(1L, 4L);

      Cleaner.Result second = cleaner.clean(log, 0);
      assertThat(controlOffsets(log)).as("second pass: horizon stamped").containsExactly(1L, 4L);
      assertThat(second.retainedTombstones()).as("a later pass is asked for").isTrue();

      fixture.time().advance(DELETE_RETENTION_MS - 1);
      cleaner.clean(log, 0);
      assertThat(controlOffsets(log)).as("before the horizon").containsExactly(1L, 4L);

      fixture.time().advance(1);
      cleaner.clean(log, 0);
      assertThat(controlOffsets(log)).as("past the horizon").containsExactly(4L);
      assertThat(dataOf(log))
          .containsExactly(
              new KeyedRecords.Entry(2, "k1", "v"),
              new KeyedRecords.Entry(3, "k2", "v"),
              new KeyedRecords.Entry(5, "k9", "v"));
    }
  }

  @Test
  void aCommitMarkerStaysWhileItsTransactionHasData() throws Exception {
    LogFixture fixture = fixture();
    try (PartitionLog log = fixture.open()) {
      long now = fixture.time().milliseconds();
      txnData(log, TXN_PRODUCER, "k1", now); // 0, never superseded
      marker(log, TXN_PRODUCER, ControlRecordType.COMMIT, now); // 1
      log.roll();
      plain(log, "k9", now); // 2
      log.updateHighWatermark(log.logEndOffset());

      Cleaner cleaner = cleaner(fixture);
      for (int pass = 0; pass < 3; pass++) {
        cleaner.clean(log, 0);
        fixture.time().advance(DELETE_RETENTION_MS);
      }

      assertThat(controlOffsets(log)).containsExactly(1L);
    }
  }

  @Test
  void anAbortLosesItsIndexEntryWithItsDataThenItsMarkerPastTheHorizon() throws Exception {
    LogFixture fixture = fixture();
    try (PartitionLog log = fixture.open()) {
      long now = fixture.time().milliseconds();
      txnData(log, TXN_PRODUCER, "k1", now); // 0, aborted
      marker(log, TXN_PRODUCER, ControlRecordType.ABORT, now); // 1
      txnData(log, TXN_PRODUCER, "k2", now); // 2, the same producer's next transaction
      marker(log, TXN_PRODUCER, ControlRecordType.COMMIT, now); // 3
      log.roll();
      plain(log, "k9", now); // 4
      log.updateHighWatermark(log.logEndOffset());

      Cleaner cleaner = cleaner(fixture);
      cleaner.clean(log, 0);
      assertThat(controlOffsets(log)).containsExactly(1L, 3L);
      assertThat(log.collectAbortedTransactions(0, 5))
          .as("the aborted data went in this pass: its marker and entry stay for it")
          .hasSize(1);

      cleaner.clean(log, 0);
      assertThat(log.collectAbortedTransactions(0, 5))
          .as("no aborted data left: the entry goes, the marker waits for its horizon")
          .isEmpty();
      assertThat(controlOffsets(log)).containsExactly(1L, 3L);

      fixture.time().advance(DELETE_RETENTION_MS);
      cleaner.clean(log, 0);
      assertThat(controlOffsets(log))
          .as("the abort marker gone, the commit's stays")
          .containsExactly(3L);
      assertThat(dataOf(log))
          .as("the committed transaction after the abort is whole")
          .containsExactly(
              new KeyedRecords.Entry(2, "k2", "v"), new KeyedRecords.Entry(4, "k9", "v"));
    }
    try (PartitionLog reopened = fixture.open(0, 0, 5, true)) {
      assertThat(reopened.collectAbortedTransactions(0, 5)).isEmpty();
    }
  }

  @Test
  void anAbortWhoseMarkerIsPastTheMapsEndKeepsItsIndexEntry() throws Exception {
    LogFixture fixture = fixture();
    try (PartitionLog log = fixture.open()) {
      long now = fixture.time().milliseconds();
      plain(log, "k0", now); // 0
      plain(log, "k5", now); // 1
      txnData(log, OTHER_TXN_PRODUCER, "k1", now); // 2, aborted
      marker(log, OTHER_TXN_PRODUCER, ControlRecordType.ABORT, now); // 3
      log.roll();
      plain(log, "k9", now); // 4
      log.updateHighWatermark(log.logEndOffset());

      // A map that holds one key: the pass indexes offset 0 only, yet copies the whole segment.
      new Cleaner(
              new OffsetMap(2 * OffsetMap.SLOT_BYTES, 0.5),
              16 * 1024,
              new Throttler(Double.MAX_VALUE, fixture.time()),
              fixture.time(),
              () -> false)
          .clean(log, 0);

      assertThat(log.collectAbortedTransactions(0, 5)).hasSize(1);
      assertThat(controlOffsets(log)).containsExactly(3L);
    }
  }

  @Test
  void aTieredLogKeepsTheMarkerOfAnAbortWhoseDataIsOnlyRemote() throws Exception {
    LogFixture fixture =
        new LogFixture(root)
            .config(
                LogConfig.builder()
                    .compacted(true)
                    .remoteStorageEnable(true)
                    .retentionMs(-1)
                    .localRetentionMs(0)
                    .fileDeleteDelayMs(0)
                    .deleteRetentionMs(DELETE_RETENTION_MS)
                    .build());
    try (PartitionLog log = fixture.open()) {
      long now = fixture.time().milliseconds();
      txnData(log, TXN_PRODUCER, "k1", now); // 0, aborted
      log.roll();
      marker(log, TXN_PRODUCER, ControlRecordType.ABORT, now); // 1
      plain(log, "k9", now); // 2
      log.roll();
      plain(log, "k8", now); // 3
      log.updateHighWatermark(log.logEndOffset());
      // The segment with the aborted data was copied, then local retention deleted it: the data
      // is remote only, its marker local.
      log.remoteCopiedUpTo(1);
      fixture.time().advance(1);
      log.deleteOldSegments();
      assertThat(log.logStartOffset()).isEqualTo(1);

      Cleaner cleaner = cleaner(fixture);
      for (int pass = 0; pass < 3; pass++) {
        cleaner.clean(log, 1);
        fixture.time().advance(DELETE_RETENTION_MS);
      }

      assertThat(log.collectAbortedTransactions(1, 4))
          .as("a read_committed consumer of the remote data must still learn of the abort")
          .hasSize(1);
      assertThat(controlOffsets(log)).containsExactly(1L);
    }
  }

  private LogFixture fixture() {
    return new LogFixture(root)
        .config(
            LogConfig.builder()
                .compacted(true)
                .fileDeleteDelayMs(0)
                .deleteRetentionMs(DELETE_RETENTION_MS)
                .build());
  }

  private static Cleaner cleaner(LogFixture fixture) {
    return new Cleaner(
        new OffsetMap(1 << 20, 0.9),
        16 * 1024,
        new Throttler(Double.MAX_VALUE, fixture.time()),
        fixture.time(),
        () -> false);
  }

  /** The next sequence number of each producer. */
  private final java.util.Map<Long, Integer> sequences = new java.util.HashMap<>();

  private void txnData(PartitionLog log, long producerId, String key, long now) throws Exception {
    int sequence = sequences.merge(producerId, 1, Integer::sum) - 1;
    log.appendAsLeader(
        MemoryRecords.withTransactionalRecords(
            Compression.NONE, producerId, (short) 0, sequence, record(key, now)),
        0);
  }

  private static void marker(PartitionLog log, long producerId, ControlRecordType type, long now)
      throws Exception {
    log.appendAsCoordinator(
        MemoryRecords.withEndTransactionMarker(
            0L,
            now,
            RecordBatch.NO_PARTITION_LEADER_EPOCH,
            producerId,
            (short) 0,
            new EndTransactionMarker(type, 0)),
        0);
  }

  private static void plain(PartitionLog log, String key, long now) throws Exception {
    log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record(key, now)), 0);
  }

  private static SimpleRecord record(String key, long now) {
    return new SimpleRecord(
        now, key.getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
  }

  /** The data records, without the markers. */
  private static List<KeyedRecords.Entry> dataOf(PartitionLog log) {
    List<Long> markers = controlOffsets(log);
    return KeyedRecords.readAll(log).stream().filter(e -> !markers.contains(e.offset())).toList();
  }

  private static List<Long> controlOffsets(PartitionLog log) {
    List<Long> offsets = new ArrayList<>();
    MemoryRecords all =
        MemoryRecords.readableRecords(
            ByteBuffer.wrap(io.brook.storage.testing.LogReads.bytes(log)));
    for (RecordBatch batch : all.batches()) {
      if (batch.isControlBatch() && batch.iterator().hasNext()) {
        offsets.add(batch.baseOffset());
      }
    }
    return offsets;
  }
}
