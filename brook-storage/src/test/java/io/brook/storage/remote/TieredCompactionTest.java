package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.cleaner.CleanerConfig;
import io.brook.storage.cleaner.LogCleaner;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.remote.TieredReads.Entry;
import io.brook.storage.testing.LogFixture;
import io.brook.storage.txn.AbortedTxn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tiered compacted topics on one partition, against a real log on disk, the real local cleaner and
 * the local-filesystem store: only cleaned segments are copied, the remote compaction keeps the
 * newest value of each key and drops expired tombstones while offsets stay, and a crash at every
 * step of its manifest swap leaves, after the tier is opened again, readable data with no orphan
 * objects.
 */
class TieredCompactionTest {
  private static final int KEYS = 40;
  private static final long DELETE_RETENTION_MS = 60_000;
  private static final Uuid TOPIC_ID = Uuid.fromString("4lbAbsNpRaGU5TcNkvHNYA");
  private static final TopicIdPartition TP = new TopicIdPartition(TOPIC_ID, LogFixture.TP);

  @TempDir Path root;

  private LogFixture fixture;
  private PartitionLog log;
  private LogCleaner cleaner;
  private FailingStore store;
  private RemoteIndexCache cache;
  private RemoteCompactor compactor;

  /** Offset, key and value (null: tombstone) of every record written, in order. */
  private final List<Entry> written = new ArrayList<>();

  private final Set<String> deleted = new HashSet<>();

  private boolean cleanAfterWrite = true;

  private void open() throws Exception {
    fixture =
        new LogFixture(root.resolve("data"))
            .config(
                LogConfig.builder()
                    .compacted(true)
                    .remoteStorageEnable(true)
                    .retentionMs(-1)
                    .localRetentionMs(0)
                    .segmentBytes(4096)
                    .deleteRetentionMs(DELETE_RETENTION_MS)
                    .fileDeleteDelayMs(0)
                    .minCleanableDirtyRatio(0.01)
                    .build());
    log = fixture.open();
    CleanerConfig config = new CleanerConfig(true, 1, 1 << 20, 64 * 1024, 0.9, 1e12, 15_000);
    cleaner =
        new LogCleaner(
            config.withThreads(0),
            List.of(root.resolve("data")),
            () -> List.of(log),
            fixture.time());
    store = new FailingStore(new LocalFsSegmentStore(root.resolve("store")));
    cache = new RemoteIndexCache(root.resolve("cache"), 1 << 20);
    compactor =
        new RemoteCompactor(1 << 20, 0.9, 64 * 1024, root.resolve("scratch"), fixture.time());
  }

  private TieredPartition tier() throws IOException {
    return TieredPartition.open(
        store,
        cache,
        log,
        TOPIC_ID,
        fixture.time(),
        0,
        () -> true,
        () -> cleaner.firstDirtyOffset(LogFixture.TP));
  }

  /**
   * One version of every key not yet deleted (tombstones for keys divisible by {@code deleteEvery}
   * if positive), five keys a batch, then a roll, the high watermark at the end and one local
   * cleaning pass.
   */
  private void writeVersion(int version, int deleteEvery) {
    List<SimpleRecord> batch = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      String key = "k" + k;
      if (deleted.contains(key)) {
        continue;
      }
      String value = deleteEvery > 0 && k % deleteEvery == 0 ? null : key + "-v" + version;
      if (value == null) {
        deleted.add(key);
      }
      written.add(new Entry(log.logEndOffset() + batch.size(), key, value));
      batch.add(
          new SimpleRecord(
              fixture.time().milliseconds(),
              key.getBytes(StandardCharsets.UTF_8),
              value == null ? null : value.getBytes(StandardCharsets.UTF_8)));
      if (batch.size() == 5 || k == KEYS - 1) {
        log.appendAsLeader(
            MemoryRecords.withRecords(Compression.NONE, batch.toArray(new SimpleRecord[0])), 0);
        batch.clear();
      }
    }
    log.roll();
    log.updateHighWatermark(log.logEndOffset());
    if (cleanAfterWrite) {
      cleaner.cleanOnce(cleaner.newCleaner());
    }
    // Past local.retention.ms (0), so what is copied leaves the local log.
    fixture.time().advance(1);
  }

  /** The newest record of every key written, tombstones included, by key. */
  private Map<String, Entry> newest() {
    Map<String, Entry> out = new LinkedHashMap<>();
    for (Entry e : written) {
      out.put(e.key(), e);
    }
    return out;
  }

  /** Every object in the store belongs to a segment the manifest lists. */
  private void assertNoOrphans(TieredPartition tier) throws IOException {
    List<String> ids = tier.manifest().segments().stream().map(RemoteSegment::id).toList();
    for (String object : store.listObjects(TP)) {
      if (object.endsWith("/manifest")) {
        continue;
      }
      assertThat(ids).as("owner of " + object).anyMatch(object::contains);
    }
  }

  @Test
  void theManifestSwapsRewrittenSegmentsForReplacedOnesInOneWrite() {
    RemoteSegment a =
        new RemoteSegment("a", 0, 9, 1, 100, RemoteSegmentState.COPY_SEGMENT_FINISHED);
    RemoteSegment b =
        new RemoteSegment("b", 10, 19, 2, 100, RemoteSegmentState.COPY_SEGMENT_FINISHED);
    RemoteSegment c =
        new RemoteSegment("c", 20, 29, 3, 100, RemoteSegmentState.COPY_SEGMENT_FINISHED);
    RemoteSegment ab =
        new RemoteSegment("ab", 0, 19, 2, 50, RemoteSegmentState.COPY_SEGMENT_STARTED);
    RemoteLogManifest before = new RemoteLogManifest(0, List.of(a, b, c)).with(ab);
    // A manifest without compactedTo reads and writes as before the field existed
    assertThat(new String(before.encode(), StandardCharsets.UTF_8)).doesNotContain("compactedTo");

    RemoteLogManifest after = before.swap(List.of("a", "b"), List.of(ab)).withCompactedEnd(20);

    assertThat(after.readable()).extracting(RemoteSegment::id).containsExactly("ab", "c");
    assertThat(after.segments())
        .filteredOn(s -> s.state() == RemoteSegmentState.DELETE_SEGMENT_STARTED)
        .extracting(RemoteSegment::id)
        .containsExactly("a", "b");
    assertThat(after.copiedEnd()).isEqualTo(30);
    assertThat(RemoteLogManifest.decode(after.encode())).isEqualTo(after);
  }

  @Test
  void copiesOnlySegmentsTheLocalCleanerHasCleaned() throws Exception {
    open();
    TieredPartition tier = tier();
    written.add(new Entry(0, "k0", "x"));
    log.appendAsLeader(
        MemoryRecords.withRecords(
            Compression.NONE, new SimpleRecord(0L, "k0".getBytes(), "x".getBytes())),
        0);
    log.roll();
    log.appendAsLeader(
        MemoryRecords.withRecords(
            Compression.NONE, new SimpleRecord(0L, "k0".getBytes(), "y".getBytes())),
        0);
    log.roll();
    log.updateHighWatermark(log.logEndOffset());

    // Committed and rolled, but not cleaned: nothing is copied
    assertThat(tier.copyEligible()).isZero();

    // Once cleaned, exactly what lies below the cleaner's first dirty offset is
    cleaner.cleanOnce(cleaner.newCleaner());
    assertThat(cleaner.firstDirtyOffset(LogFixture.TP)).isEqualTo(2);
    assertThat(tier.copyEligible()).isEqualTo(1);
    assertThat(tier.manifest().copiedEnd()).isEqualTo(2);
  }

  @Test
  void aSegmentTheCleanerReplacesWhileItIsCopiedIsCopiedAgain() throws Exception {
    // Given: a cleaned version, then a dirty one the cleaner will merge with it
    open();
    TieredPartition tier = tier();
    writeVersion(0, 0);
    cleanAfterWrite = false;
    writeVersion(1, 0);
    // When: the cleaner replaces the segment in the middle of its upload
    store.duringCopy(() -> cleaner.cleanOnce(cleaner.newCleaner()));
    assertThat(tier.copyEligible()).isZero();

    // Then: nothing half-right was recorded, and the next copy takes the cleaned segment
    assertThat(tier.manifest().segments()).isEmpty();
    assertNoOrphans(tier);
    store.duringCopy(() -> {});
    assertThat(tier.copyEligible()).isPositive();
    Map<String, Entry> latest = new HashMap<>();
    for (Entry e : TieredReads.readAll(tier, log)) {
      latest.put(e.key(), e);
    }
    assertThat(latest).isEqualTo(newest());
  }

  @Test
  void remoteCompactionKeepsTheNewestValueOfEachKeyAtItsOffsetAndDropsExpiredTombstones()
      throws Exception {
    open();
    TieredPartition tier = tier();
    for (int version = 0; version < 6; version++) {
      writeVersion(version, version == 5 ? 4 : 0);
      tier.copyEligible();
      tier.deleteReplaced();
      tier.compactIfDirty(compactor);
    }
    // Local retention (0) moved everything copied away; the rest is remote and compacted.
    assertThat(log.logStartOffset()).isEqualTo(tier.manifest().copiedEnd());
    assertThat(tier.manifest().compactedEnd()).isGreaterThan(0);
    List<Entry> read = TieredReads.readAll(tier, log);
    // Exactly the newest record of each key, at the offset it was written at, tombstones included
    assertThat(read).containsExactlyInAnyOrderElementsOf(newest().values());
    assertThat(compactor.scratchIsEmpty()).isTrue();

    // When delete.retention.ms passes and new data dirties the remote copy
    fixture.time().advance(DELETE_RETENTION_MS + 1);
    writeVersion(6, 0);
    for (int i = 0; i < 3; i++) {
      tier.copyEligible();
      tier.deleteReplaced();
      tier.compactIfDirty(compactor);
    }
    tier.deleteReplaced();

    // Then: the newest value of every live key, no tombstone, and no object left behind
    read = TieredReads.readAll(tier, log);
    assertThat(read)
        .containsExactlyInAnyOrderElementsOf(
            newest().values().stream().filter(e -> e.value() != null).toList());
    assertNoOrphans(tier);
    assertThat(tier.manifest().segments())
        .allMatch(s -> s.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED);
  }

  /**
   * The remote pass treats transactions as the local cleaner does: an abort whose data is gone from
   * the remote copy loses its index entry in the rewritten segment at once, and its marker after
   * delete.retention.ms.
   */
  @Test
  void remoteCompactionDropsAnAbortsIndexEntryWithoutDataThenItsMarkerPastTheHorizon()
      throws Exception {
    open();
    TieredPartition tier = tier();
    long now = fixture.time().milliseconds();
    long producerId = 5;
    txnData(producerId, 0, "t0", now); // 0, aborted
    marker(producerId, ControlRecordType.ABORT, now); // 1
    // The producer's next transaction, so the aborted batch is not its last (kept for sequences).
    txnData(producerId, 1, "t1", now); // 2
    marker(producerId, ControlRecordType.COMMIT, now); // 3
    writeVersion(0, 0);
    tier.copyEligible();
    // The local pass dropped the aborted data and kept the marker and entry it had met data for.
    assertThat(markerOffsets(tier)).contains(1L);
    assertThat(remoteAborts(tier)).hasSize(1);

    writeVersion(1, 0);
    tier.copyEligible();
    assertThat(tier.compactIfDirty(compactor)).isTrue();
    assertThat(remoteAborts(tier)).as("no aborted data left remotely: the entry goes").isEmpty();
    assertThat(markerOffsets(tier)).as("the marker waits for its horizon").contains(1L);

    fixture.time().advance(DELETE_RETENTION_MS + 1);
    writeVersion(2, 0);
    tier.copyEligible();
    tier.deleteReplaced();
    assertThat(tier.compactIfDirty(compactor)).isTrue();
    assertThat(markerOffsets(tier)).as("past the horizon").doesNotContain(1L).contains(3L);
    assertThat(tier.abortedTransactions(0, log.logEndOffset())).isEmpty();
  }

  private void txnData(long producerId, int sequence, String key, long now) {
    log.appendAsLeader(
        MemoryRecords.withTransactionalRecords(
            Compression.NONE,
            producerId,
            (short) 0,
            sequence,
            new SimpleRecord(
                now, key.getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8))),
        0);
  }

  private void marker(long producerId, ControlRecordType type, long now) {
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

  /** The abort entries of the readable remote segments' transaction indexes. */
  private List<AbortedTxn> remoteAborts(TieredPartition tier) throws IOException {
    List<AbortedTxn> out = new ArrayList<>();
    for (RemoteSegment s : tier.manifest().readable()) {
      out.addAll(cache.abortedTxns(store, TP, s));
    }
    return out;
  }

  /** The offsets of the transaction markers in the remote copy. */
  private static List<Long> markerOffsets(TieredPartition tier) throws IOException {
    List<Long> out = new ArrayList<>();
    long next = tier.logStartOffset();
    while (tier.holds(next)) {
      for (RecordBatch batch : tier.read(next, 1 << 20, Long.MAX_VALUE, true).batches()) {
        if (batch.isControlBatch() && batch.iterator().hasNext()) {
          out.add(batch.baseOffset());
        }
        next = batch.nextOffset();
      }
    }
    return out;
  }

  /**
   * A pass that indexes local data beyond the remote copy must not mark it compacted: a segment the
   * local cleaner cleaned before that data came is copied later with older values the pass saw
   * newer ones of, and the next pass must still remove them.
   */
  @Test
  void dataCopiedAfterAPassIsCompactedAgainstTheKeysThatPassIndexedLocally() throws Exception {
    open();
    TieredPartition tier = tier();
    writeVersion(0, 0);
    tier.copyEligible();
    writeVersion(1, 0); // cleaned locally: copyable, not copied yet
    cleanAfterWrite = false;
    writeVersion(2, 0); // not cleaned: the local cleaner has not seen it
    assertThat(tier.compactIfDirty(compactor)).isTrue();
    assertThat(tier.manifest().compactedEnd()).isLessThanOrEqualTo(tier.manifest().copiedEnd());

    tier.copyEligible(); // version 1, as cleaned before version 2 came
    cleaner.cleanOnce(cleaner.newCleaner());
    tier.copyEligible(); // version 2
    for (int i = 0; i < 2; i++) {
      tier.deleteReplaced();
      tier.compactIfDirty(compactor);
    }

    assertThat(TieredReads.readAll(tier, log))
        .containsExactlyInAnyOrderElementsOf(newest().values());
  }

  @Test
  void theCompactedEndSurvivesInTheManifest() throws Exception {
    open();
    TieredPartition tier = tier();
    for (int version = 0; version < 3; version++) {
      writeVersion(version, 0);
      tier.copyEligible();
      tier.compactIfDirty(compactor);
    }
    long compactedEnd = tier.manifest().compactedEnd();
    assertThat(compactedEnd).isGreaterThan(0);
    assertThat(TieredPartition.readManifest(store, TP).compactedEnd()).isEqualTo(compactedEnd);
    // A clean remote copy is not rewritten again by a reopened tier
    TieredPartition reopened = tier();
    assertThat(reopened.compactIfDirty(compactor)).isFalse();
  }

  /**
   * A crash at each step of a remote compaction (the store fails from that call on, as if the
   * broker died there), then the tier opened again: the data reads as before or as compacted, no
   * object is orphaned, and the next pass completes.
   */
  @ParameterizedTest(name = "{0} #{1}")
  @CsvSource({
    "writeManifest, 1", // recording the first new segment as COPY_SEGMENT_STARTED
    "copySegment, 1", // uploading the first new segment
    "writeManifest, 2", // recording the second new segment, or the swap if there is one
    "swap, 1", // the manifest write that swaps new segments for old
    "deleteSegment, 1", // deleting the replaced objects, a task later
    "drop, 1", // dropping the replaced entries
  })
  void aCrashAtAnyStepOfTheSwapLeavesReadableDataAndNoOrphans(String op, int nth) throws Exception {
    open();
    TieredPartition tier = tier();
    for (int version = 0; version < 4; version++) {
      writeVersion(version, version == 3 ? 4 : 0);
      tier.copyEligible();
    }
    Map<String, Entry> newest = newest();
    assertThat(tier.manifest().readable()).hasSizeGreaterThan(2);

    // When: the pass (and the deletion a task later) runs into the kill point
    store.failFrom(op, nth);
    assertThatThrownBy(
            () -> {
              tier.compactIfDirty(compactor);
              tier.deleteReplaced();
            })
        .isInstanceOf(IOException.class);

    // Then: after a restart the tier reads the newest value of every key at its offset
    store.revive();
    TieredPartition reopened = tier();
    assertThat(reopened.manifest().segments())
        .allMatch(s -> s.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED);
    assertNoOrphans(reopened);
    Map<String, Entry> latest = new HashMap<>();
    for (Entry e : TieredReads.readAll(reopened, log)) {
      latest.put(e.key(), e);
    }
    assertThat(latest).isEqualTo(newest);

    // And the next pass completes: exactly the newest records remain
    writeVersion(4, 0);
    reopened.copyEligible();
    reopened.compactIfDirty(compactor);
    reopened.deleteReplaced();
    assertThat(TieredReads.readAll(reopened, log))
        .containsExactlyInAnyOrderElementsOf(newest().values());
    assertNoOrphans(reopened);
  }

  /**
   * A store that fails the {@code nth} call of one operation and every call after it, as a broker
   * that died at that point would make no more calls; {@link #revive} is the restart.
   */
  private static final class FailingStore extends ForwardingSegmentStore {
    private final Map<String, Integer> calls = new HashMap<>();
    private String failOp;
    private int failAt;
    private boolean dead;
    private Runnable duringCopy = () -> {};

    FailingStore(RemoteSegmentStore delegate) {
      super(delegate);
    }

    void failFrom(String op, int nth) {
      calls.clear();
      failOp = op;
      failAt = nth;
    }

    /** Runs {@code action} in every upload, after its files were chosen and before they go. */
    void duringCopy(Runnable action) {
      duringCopy = action;
    }

    void revive() {
      failOp = null;
      dead = false;
    }

    private void check(String op) throws IOException {
      int n = calls.merge(op, 1, Integer::sum);
      if (op.equals(failOp) && n == failAt) {
        dead = true;
      }
      if (dead) {
        throw new IOException("store down (simulated crash at " + failOp + " #" + failAt + ")");
      }
    }

    /** A manifest write, which is also the swap (it has replaced entries) or the drop after it. */
    private void checkManifest(byte[] manifest) throws IOException {
      String text = new String(manifest, StandardCharsets.UTF_8);
      if (text.contains(RemoteSegmentState.DELETE_SEGMENT_STARTED.name())) {
        check("swap");
      } else if (calls.containsKey("deleteSegment")) {
        check("drop");
      }
      check("writeManifest");
    }

    @Override
    public void copySegment(TopicIdPartition tp, RemoteSegment segment, LocalSegmentFiles files)
        throws IOException {
      check("copySegment");
      duringCopy.run();
      super.copySegment(tp, segment, files);
    }

    @Override
    public byte[] fetchLogRange(TopicIdPartition tp, RemoteSegment segment, long start, int length)
        throws IOException {
      check("fetch");
      return super.fetchLogRange(tp, segment, start, length);
    }

    @Override
    public Optional<byte[]> fetchFile(
        TopicIdPartition tp, RemoteSegment segment, RemoteFileType type) throws IOException {
      check("fetch");
      return super.fetchFile(tp, segment, type);
    }

    @Override
    public void deleteSegment(TopicIdPartition tp, RemoteSegment segment) throws IOException {
      check("deleteSegment");
      super.deleteSegment(tp, segment);
    }

    @Override
    public Optional<byte[]> readManifest(TopicIdPartition tp) throws IOException {
      check("readManifest");
      return super.readManifest(tp);
    }

    @Override
    public void writeManifest(TopicIdPartition tp, byte[] manifest) throws IOException {
      checkManifest(manifest);
      super.writeManifest(tp, manifest);
    }

    @Override
    public Optional<StoredManifest> readManifestVersion(TopicIdPartition tp) throws IOException {
      check("readManifest");
      return super.readManifestVersion(tp);
    }

    @Override
    public String replaceManifest(
        TopicIdPartition tp, byte[] manifest, Optional<String> expectedVersion) throws IOException {
      checkManifest(manifest);
      return super.replaceManifest(tp, manifest, expectedVersion);
    }

    @Override
    public void deleteManifest(TopicIdPartition tp) throws IOException {
      check("deleteManifest");
      super.deleteManifest(tp);
    }

    @Override
    public List<String> listObjects(TopicIdPartition tp) throws IOException {
      return super.listObjects(tp);
    }

    @Override
    public void close() throws IOException {
      super.close();
    }
  }
}
