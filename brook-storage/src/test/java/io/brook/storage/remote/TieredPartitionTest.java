package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.storage.StorageError;
import io.brook.storage.StorageException;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.segment.LogSegment;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The copier, remote retention, crash cleanup and remote reads of one partition, against a real log
 * on disk and the local-filesystem store.
 */
class TieredPartitionTest {
  private static final long HOUR = 3_600_000L;
  private static final Uuid TOPIC_ID = Uuid.fromString("4lbAbsNpRaGU5TcNkvHNYA");
  private static final TopicIdPartition TP = new TopicIdPartition(TOPIC_ID, LogFixture.TP);

  @TempDir Path root;

  private LogFixture fixture;
  private LocalFsSegmentStore store;
  private RemoteIndexCache cache;
  private final List<byte[]> appended = new ArrayList<>();

  /** One ~1.1 KB batch per segment (segment.bytes 1500), so segment i holds offset i. */
  private PartitionLog open(LogConfig.Builder config) throws Exception {
    fixture =
        new LogFixture(root.resolve("data"))
            .config(config.segmentBytes(1500).remoteStorageEnable(true).build());
    store = new LocalFsSegmentStore(root.resolve("store"));
    cache = new RemoteIndexCache(root.resolve("cache"), 1 << 20);
    return fixture.open();
  }

  private TieredPartition tier(PartitionLog log) throws Exception {
    return TieredPartition.open(
        store, cache, log, TOPIC_ID, fixture.time(), 0, () -> true, () -> 0L);
  }

  /** The tier is not fenced, copied the four closed segments, and the store holds its manifest. */
  private void assertCopiedAllByItsOwnManifest(TieredPartition tier, int copied) throws Exception {
    assertThat(tier.fenced()).isFalse();
    assertThat(copied).isEqualTo(4);
    RemoteLogManifest stored = RemoteLogManifest.decode(store.readManifest(TP).orElseThrow());
    assertThat(stored).isEqualTo(tier.manifest());
    assertThat(
            stored.segments().stream()
                .filter(s -> s.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED)
                .map(RemoteSegment::baseOffset))
        .containsExactly(0L, 1L, 2L, 3L);
  }

  /** Five one-batch segments, the first four below the high watermark (the last is active). */
  private PartitionLog fiveSegmentsBelowTheHighWatermark() throws Exception {
    PartitionLog log = open(LogConfig.builder().retentionMs(-1).localRetentionMs(-2));
    long now = fixture.time().milliseconds();
    for (int i = 0; i < 5; i++) {
      append(log, now + i);
    }
    log.updateHighWatermark(4);
    return log;
  }

  /** Appends one batch at {@code timestamp}, keeping its bytes as stored (offsets stamped). */
  private void append(PartitionLog log, long timestamp) {
    MemoryRecords batch = Batches.sized(1, 1024, timestamp, appended.size());
    log.appendAsLeader(batch, 0);
    appended.add(Batches.bytes(batch));
  }

  private static List<Long> bases(PartitionLog log) {
    return log.segments().stream().map(LogSegment::baseOffset).toList();
  }

  private static List<Long> remoteBases(TieredPartition tier) {
    return tier.manifest().segments().stream().map(RemoteSegment::baseOffset).toList();
  }

  @Test
  void copiesCommittedRolledSegmentsOldestFirstAndOnlyThenDeletesThemLocally() throws Exception {
    // Given: five segments of hour-old records, past both the total retention (30 minutes) and
    // the local one (0), the high watermark at 3
    PartitionLog log = open(LogConfig.builder().retentionMs(HOUR / 2).localRetentionMs(0));
    long old = fixture.time().milliseconds() - HOUR;
    for (int i = 0; i < 5; i++) {
      append(log, old + i);
    }
    log.updateHighWatermark(3);
    TieredPartition tier = tier(log);

    // Then: nothing is deleted locally before it is copied, whatever local retention says
    assertThat(log.deleteOldSegments()).isZero();
    assertThat(bases(log)).containsExactly(0L, 1L, 2L, 3L, 4L);

    // When
    int copied = tier.copyEligible();

    // Then: the three segments wholly below the high watermark, in order, and only they leave
    assertThat(copied).isEqualTo(3);
    assertThat(remoteBases(tier)).containsExactly(0L, 1L, 2L);
    assertThat(tier.manifest().segments())
        .allMatch(s -> s.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED);
    assertThat(bases(log)).containsExactly(3L, 4L);
    assertThat(tier.logStartOffset()).isZero();
    assertThat(tier.highestRemoteOffset()).isEqualTo(2);

    // And a second run copies nothing new until the high watermark moves
    assertThat(tier.copyEligible()).isZero();
    log.updateHighWatermark(5);
    append(log, old + 5);
    log.updateHighWatermark(6);
    assertThat(tier.copyEligible()).isEqualTo(2);
    assertThat(remoteBases(tier)).containsExactly(0L, 1L, 2L, 3L, 4L);
  }

  @Test
  void readsRemoteBatchesByteForByteAndFindsOffsetsByTime() throws Exception {
    PartitionLog log = open(LogConfig.builder().retentionMs(-1).localRetentionMs(0));
    long old = fixture.time().milliseconds() - HOUR;
    for (int i = 0; i < 4; i++) {
      append(log, old + 10 * i);
    }
    log.updateHighWatermark(4);
    TieredPartition tier = tier(log);
    tier.copyEligible();
    assertThat(log.logStartOffset()).isEqualTo(3);

    for (int offset = 0; offset < 3; offset++) {
      MemoryRecords read = tier.read(offset, 100_000, 4, true);
      assertThat(Batches.bytes(read)).isEqualTo(appended.get(offset));
    }
    // A limit below one batch still returns it whole when it is the first (KIP-74), else nothing.
    assertThat(Batches.bytes(tier.read(1, 10, 4, true))).isEqualTo(appended.get(1));
    assertThat(tier.read(1, 10, 4, false).sizeInBytes()).isZero();
    assertThatThrownBy(() -> tier.read(3, 100_000, 4, true))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.error()).isEqualTo(StorageError.OFFSET_OUT_OF_RANGE));

    Optional<FileRecords.TimestampAndOffset> found = tier.offsetForTimestamp(old + 15);
    assertThat(found).hasValueSatisfying(f -> assertThat(f.offset).isEqualTo(2));
    assertThat(tier.offsetForTimestamp(old + 25)).isEmpty(); // in local data only
  }

  @Test
  void aCrashMidCopyOrMidDeleteIsCleanedUpWhenTheTierIsOpened() throws Exception {
    // Given: two copied segments, then a copy and a delete interrupted after their first step
    PartitionLog log = open(LogConfig.builder().retentionMs(-1).localRetentionMs(-2));
    long old = fixture.time().milliseconds() - HOUR;
    for (int i = 0; i < 4; i++) {
      append(log, old + i);
    }
    log.updateHighWatermark(2);
    TieredPartition first = tier(log);
    first.copyEligible();
    RemoteSegment deleting = first.manifest().segments().get(0);
    RemoteSegment orphan =
        new RemoteSegment("crashed-copy", 2, 2, old, 100, RemoteSegmentState.COPY_SEGMENT_STARTED);
    Path fakeLog = Files.write(root.resolve("fake.log"), new byte[100]);
    store.copySegment(
        TP,
        orphan,
        new LocalSegmentFiles(
            fakeLog, new byte[8], new byte[12], Optional.empty(), Optional.empty(), new byte[0]));
    store.writeManifest(
        TP,
        first
            .manifest()
            .with(deleting.withState(RemoteSegmentState.DELETE_SEGMENT_STARTED))
            .with(orphan)
            .encode());
    assertThat(store.listObjects(TP)).anyMatch(k -> k.contains("crashed-copy"));

    // When: the tier is opened again (a restart)
    TieredPartition reopened = tier(log);

    // Then: both are gone from the store and the manifest; the finished copy is readable
    assertThat(store.listObjects(TP))
        .noneMatch(k -> k.contains("crashed-copy") || k.contains(deleting.id()));
    assertThat(remoteBases(reopened)).containsExactly(1L);
    assertThat(RemoteLogManifest.decode(store.readManifest(TP).orElseThrow()))
        .isEqualTo(reopened.manifest());
    assertThat(reopened.holds(1)).isTrue();
    assertThat(reopened.holds(0)).isFalse();
    // The retried copy of offset 2 gets a fresh id and succeeds.
    log.updateHighWatermark(4);
    reopened.copyEligible();
    assertThat(remoteBases(reopened)).containsExactly(1L, 2L);
  }

  @Test
  void totalRetentionDeletesTheOldestRemoteSegmentsAndMovesTheRemoteStart() throws Exception {
    PartitionLog log = open(LogConfig.builder().retentionMs(-1).localRetentionMs(0));
    long now = fixture.time().milliseconds();
    for (int i = 0; i < 5; i++) {
      append(log, now - (5 - i) * HOUR);
    }
    log.updateHighWatermark(5);
    TieredPartition tier = tier(log);
    tier.copyEligible();
    assertThat(remoteBases(tier)).containsExactly(0L, 1L, 2L, 3L);

    // retention.ms of 2.5 hours: the segments with records 5, 4 and 3 hours old go
    log.updateConfig(log.config().toBuilder().retentionMs(5 * HOUR / 2).build());
    assertThat(tier.expire()).isEqualTo(3);
    assertThat(remoteBases(tier)).containsExactly(3L);
    assertThat(tier.logStartOffset()).isEqualTo(3);
    assertThat(store.listObjects(TP))
        .allMatch(k -> k.endsWith("manifest") || k.contains("00000000000000000003-"));
  }

  @Test
  void aManifestWriteWhoseAnswerWasLostDoesNotFenceItsOwnLeader() throws Exception {
    // Given: five segments below the high watermark; the first manifest write of the copy (the
    // segment marked as being copied) reaches the store but its answer is lost
    PartitionLog log = fiveSegmentsBelowTheHighWatermark();
    LostAnswerStore lossy = new LostAnswerStore(store);
    TieredPartition tier =
        TieredPartition.open(lossy, cache, log, TOPIC_ID, fixture.time(), 1, () -> true, () -> 0L);
    lossy.loseNextAnswers(1);
    assertThatThrownBy(tier::copyEligible).isInstanceOf(java.io.IOException.class);

    // When: the next copy task runs
    int copied = tier.copyEligible();

    // Then: the leader goes on from the manifest its own write stored, instead of taking it for
    // a newer leader's and stopping
    assertCopiedAllByItsOwnManifest(tier, copied);
  }

  @Test
  void aCopyMarkedFinishedWhoseAnswerWasLostIsKeptNotCleanedUpAsUnfinished() throws Exception {
    // Given: the write marking the first copy finished reaches the store but its answer is lost,
    // so the leader's task fails with the segment still started in what the leader holds, while
    // the stored manifest, which followers read for their local retention, names it copied
    PartitionLog log = fiveSegmentsBelowTheHighWatermark();
    LostAnswerStore lossy = new LostAnswerStore(store);
    TieredPartition tier =
        TieredPartition.open(lossy, cache, log, TOPIC_ID, fixture.time(), 1, () -> true, () -> 0L);
    lossy.loseAnswersAfter(1, 1);
    assertThatThrownBy(tier::copyEligible).isInstanceOf(java.io.IOException.class);
    RemoteSegment copiedSegment =
        RemoteLogManifest.decode(store.readManifest(TP).orElseThrow()).segments().get(0);
    assertThat(copiedSegment.state()).isEqualTo(RemoteSegmentState.COPY_SEGMENT_FINISHED);

    // When: the next copy task runs
    int copied = tier.copyEligible();

    // Then: the leader reads the stored manifest again before cleaning up, so the segment's
    // objects stay (deleting them would leave a follower that dropped its local copy, and the
    // cluster once this leader fails, without the records) and only the other three are copied
    assertThat(copied).isEqualTo(3);
    assertThat(tier.manifest().segments().get(0)).isEqualTo(copiedSegment);
    assertThat(store.listObjects(TP))
        .anyMatch(k -> k.contains(copiedSegment.id()) && k.endsWith(".log"));
    assertCopiedAllByItsOwnManifest(tier, copied + 1);
  }

  @Test
  void aRetriedManifestWriteRefusedByItsOwnFirstAttemptDoesNotFenceItsLeader() throws Exception {
    // Given: a copy whose manifest write is stored but answered with an error, then, in the next
    // copy task, a write that is stored and answered as a conflict (the client's retry of it found
    // its own first attempt in place)
    PartitionLog log = fiveSegmentsBelowTheHighWatermark();
    LostAnswerStore lossy = new LostAnswerStore(store);
    TieredPartition tier =
        TieredPartition.open(lossy, cache, log, TOPIC_ID, fixture.time(), 1, () -> true, () -> 0L);
    lossy.loseNextAnswers(1);
    assertThatThrownBy(tier::copyEligible).isInstanceOf(java.io.IOException.class);
    lossy.refuseNextAfterStoring(2);

    // When: the next copy task runs
    int copied = tier.copyEligible();

    // Then: the leader takes both for its own writes and copies every segment
    assertCopiedAllByItsOwnManifest(tier, copied);
  }

  @Test
  void aReplacedLeaderFinishingACopyWhileTheNewLeaderCleansUpLeavesNoSegmentWithoutObjects()
      throws Exception {
    // Given: the leader in epoch 1 has copied segment 0 and is copying segment 1: the manifest
    // says it started, its objects are uploaded, the write marking it finished not yet made
    PartitionLog log = open(LogConfig.builder().retentionMs(-1).localRetentionMs(-2));
    long now = fixture.time().milliseconds();
    for (int i = 0; i < 5; i++) {
      append(log, now + i);
    }
    log.updateHighWatermark(1);
    CountDownLatch uploaded = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    RemoteSegmentStore oldStore =
        new ForwardingSegmentStore(store) {
          @Override
          public void copySegment(
              TopicIdPartition tp, RemoteSegment segment, LocalSegmentFiles files)
              throws java.io.IOException {
            super.copySegment(tp, segment, files);
            if (segment.baseOffset() == 1) {
              uploaded.countDown();
              await(finish);
            }
          }
        };
    TieredPartition old =
        TieredPartition.open(
            oldStore, cache, log, TOPIC_ID, fixture.time(), 1, () -> true, () -> 0L);
    assertThat(old.copyEligible()).isEqualTo(1);
    log.updateHighWatermark(2);
    CompletableFuture<Integer> oldCopy =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return old.copyEligible();
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    await(uploaded);

    // When: a new leader, in epoch 2, opens the tier (while the old one, cut off from the
    // controller, still believes it leads) and the old one's write marking the copy finished
    // comes after the new one read the manifest, just before it deletes the unfinished copy
    RemoteSegmentStore newStore =
        new ForwardingSegmentStore(store) {
          @Override
          public void deleteSegment(TopicIdPartition tp, RemoteSegment segment)
              throws java.io.IOException {
            finish.countDown();
            oldCopy.handle((copied, error) -> null).join();
            super.deleteSegment(tp, segment);
          }
        };
    TieredPartition current =
        TieredPartition.open(
            newStore, cache, log, TOPIC_ID, fixture.time(), 2, () -> true, () -> 0L);

    // Then: the new leader claimed the manifest before it deleted anything, so the old leader's
    // write failed and it stopped; the manifest names only segments whose objects are stored
    assertThatThrownBy(oldCopy::join).hasRootCauseInstanceOf(ManifestConflictException.class);
    assertThat(old.fenced()).isTrue();
    assertThat(current.fenced()).isFalse();
    RemoteLogManifest stored = RemoteLogManifest.decode(store.readManifest(TP).orElseThrow());
    assertThat(stored).isEqualTo(current.manifest());
    for (RemoteSegment s : stored.segments()) {
      assertThat(store.listObjects(TP)).anyMatch(k -> k.contains(s.id()) && k.endsWith(".log"));
    }
    // And: the new leader copies segment 1 itself, and every record is read back remotely
    assertThat(current.copyEligible()).isEqualTo(1);
    assertThat(remoteBases(current)).containsExactly(0L, 1L);
    for (long offset = 0; offset < 2; offset++) {
      MemoryRecords read = current.read(offset, 1 << 20, Long.MAX_VALUE, true);
      assertThat(Batches.bytes(read)).isEqualTo(appended.get((int) offset));
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void aReplacedLeaderCannotOverwriteTheNewLeadersManifestAndStopsCopying() throws Exception {
    // Given: the leader in epoch 1 has copied segment 0; a new leader, in epoch 2, opens the tier
    // and copies segments 1 to 3 while the old one still believes it leads
    PartitionLog log = open(LogConfig.builder().retentionMs(-1).localRetentionMs(-2));
    long now = fixture.time().milliseconds();
    for (int i = 0; i < 5; i++) {
      append(log, now + i);
    }
    log.updateHighWatermark(1);
    TieredPartition old =
        TieredPartition.open(store, cache, log, TOPIC_ID, fixture.time(), 1, () -> true, () -> 0L);
    assertThat(old.copyEligible()).isEqualTo(1);
    TieredPartition current =
        TieredPartition.open(store, cache, log, TOPIC_ID, fixture.time(), 2, () -> true, () -> 0L);
    log.updateHighWatermark(4);
    assertThat(current.copyEligible()).isEqualTo(3);

    // When: the old leader copies on
    // Then: its manifest write fails (the version it read is gone), it copies nothing more, and
    // the store keeps exactly the new leader's manifest and segments
    assertThatThrownBy(old::copyEligible).isInstanceOf(ManifestConflictException.class);
    assertThat(old.fenced()).isTrue();
    assertThat(old.copyEligible()).isZero();
    assertThatThrownBy(() -> old.moveLogStart(2)).isInstanceOf(ManifestConflictException.class);
    RemoteLogManifest stored = RemoteLogManifest.decode(store.readManifest(TP).orElseThrow());
    assertThat(stored).isEqualTo(current.manifest());
    assertThat(stored.leaderEpoch()).isEqualTo(2);
    assertThat(remoteBases(current)).containsExactly(0L, 1L, 2L, 3L);
    assertThat(store.listObjects(TP).stream().filter(k -> k.endsWith(".log"))).hasSize(4);

    // And: a tier opened later for the old epoch writes nothing at all (not even its cleanup)
    TieredPartition late =
        TieredPartition.open(store, cache, log, TOPIC_ID, fixture.time(), 1, () -> true, () -> 0L);
    assertThat(late.fenced()).isTrue();
    assertThat(late.copyEligible()).isZero();
    assertThat(store.readManifest(TP).orElseThrow()).isEqualTo(stored.encode());
  }

  @Test
  void moveLogStartHidesRemoteOffsetsBelowItAndExpiryDeletesWhollyBelowSegments() throws Exception {
    PartitionLog log = open(LogConfig.builder().retentionMs(-1).localRetentionMs(0));
    long now = fixture.time().milliseconds();
    for (int i = 0; i < 5; i++) {
      append(log, now + i);
    }
    log.updateHighWatermark(5);
    TieredPartition tier = tier(log);
    tier.copyEligible();
    assertThat(remoteBases(tier)).containsExactly(0L, 1L, 2L, 3L);

    assertThat(tier.moveLogStart(2)).isEqualTo(2);
    assertThat(tier.holds(1)).isFalse();
    assertThatThrownBy(() -> tier.read(1, 1 << 20, Long.MAX_VALUE, true))
        .isInstanceOf(StorageException.class)
        .extracting(e -> ((StorageException) e).error())
        .isEqualTo(StorageError.OFFSET_OUT_OF_RANGE);
    assertThat(tier.moveLogStart(1)).as("never moves back").isEqualTo(2);

    assertThat(tier.expire()).isEqualTo(2);
    assertThat(remoteBases(tier)).containsExactly(2L, 3L);
    RemoteLogManifest stored = RemoteLogManifest.decode(store.readManifest(TP).orElseThrow());
    assertThat(stored.logStartOffset()).isEqualTo(2);
    assertThat(store.listObjects(TP))
        .noneMatch(k -> k.contains("00000000000000000000-") || k.contains("00000000000000000001-"));
  }
}
