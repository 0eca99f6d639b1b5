package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.remote.TieredReads.Entry;
import io.brook.storage.testing.LogFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leaders of a tiered compacted partition handing its remote tier over while the one they replace
 * still copies, compacts the remote copy and deletes what compaction replaced: every store call of
 * every leader is a step of an {@link Interleaver}, and each seed runs them in another order, in
 * one scenario with some manifest writes stored but their answers lost ({@link
 * SteppedSegmentStore}). Whatever the order, no segment's objects are deleted while the stored
 * manifest names it copied, the newest leader ends up owning the manifest with every segment it
 * names stored and finished, and a consumer reading the newest leader from offset 0 finds every
 * key's newest value, after every other value of its key.
 *
 * <p>More orders: {@code -Dbrook.tiered.schedules=20000}; one order again: {@code
 * -Dbrook.tiered.seed=S -Dbrook.tiered.schedules=1}.
 */
class TieredCompactionHandoverTest {
  private static final Uuid TOPIC_ID = Uuid.fromString("Wq3nPz8dT2mYc6sVb1KxLg");
  private static final TopicIdPartition TP = new TopicIdPartition(TOPIC_ID, LogFixture.TP);
  private static final int SCHEDULES = Integer.getInteger("brook.tiered.schedules", 60);
  private static final long FIRST_SEED = Long.getLong("brook.tiered.seed", 1L);

  /** Every version writes each key once, in two batches, then rolls: one segment a version. */
  private static final int KEYS = 10;

  private static final int VERSIONS = 6;

  /** The versions the first leader copies and compacts before the others start. */
  private static final int VERSIONS_BEFORE = 3;

  @TempDir Path root;

  private LogFixture template;

  @BeforeEach
  void writeTheTemplateLog() throws IOException {
    template = fixture(root.resolve("template"));
    try (PartitionLog log = template.open()) {
      for (int version = 0; version < VERSIONS; version++) {
        List<SimpleRecord> batch = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
          batch.add(
              new SimpleRecord(
                  template.time().milliseconds(),
                  ("k" + k).getBytes(StandardCharsets.UTF_8),
                  value(k, version).getBytes(StandardCharsets.UTF_8)));
          if (batch.size() == KEYS / 2) {
            log.appendAsLeader(
                MemoryRecords.withRecords(Compression.NONE, batch.toArray(new SimpleRecord[0])), 0);
            batch.clear();
          }
        }
        log.roll();
      }
    }
  }

  private static String value(int key, int version) {
    return "k" + key + "-v" + version;
  }

  private static LogFixture fixture(Path dir) {
    return new LogFixture(dir)
        .config(
            LogConfig.builder()
                .compacted(true)
                .remoteStorageEnable(true)
                .retentionMs(-1)
                .localRetentionMs(0)
                .segmentBytes(64 * 1024)
                .minCleanableDirtyRatio(0.01)
                .build());
  }

  @Test
  void aLeaderReplacedWhileItCompactsTheRemoteCopyLosesNothing() throws Exception {
    for (long seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
      runSchedule(seed, false);
    }
  }

  @Test
  void aHandoverWhileCompactingAndLosingAnswersLosesNothing() throws Exception {
    for (long seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
      runSchedule(seed, true);
    }
  }

  /**
   * The leader of epoch 1 has copied and compacted the first versions; then, at once, it and the
   * leader of epoch 2 (which opens the tier) each copy what they find uncopied, compact the remote
   * copy, delete what compaction replaced, and run the task once more.
   */
  private void runSchedule(long seed, boolean lostAnswers) throws Exception {
    Path dir = root.resolve("seed-" + seed + "-" + lostAnswers);
    long end = (long) KEYS * VERSIONS;
    try (Handover handover = new Handover(dir, seed, lostAnswers, TP, () -> Long.MAX_VALUE)) {
      List<RemoteCompactor> compactors = new ArrayList<>();
      for (int epoch = 1; epoch <= 2; epoch++) {
        LogFixture fixture = fixture(handover.nextLeaderDir());
        handover.addLeader(template, fixture, end, (long) KEYS * VERSIONS_BEFORE);
        compactors.add(
            new RemoteCompactor(
                1 << 20, 0.9, 64 * 1024, dir.resolve("scratch-" + epoch), fixture.time()));
      }
      TieredPartition first = handover.open(1);
      assertThat(first.copyEligible()).isEqualTo(VERSIONS_BEFORE);
      assertThat(first.compactIfDirty(compactors.get(0))).isTrue();
      for (PartitionLog log : handover.logs()) {
        log.updateHighWatermark(end);
      }

      Map<String, Throwable> failures =
          handover.run(
              (tier, epoch) -> {
                tier.copyEligible();
                tier.compactIfDirty(compactors.get(epoch - 1));
                tier.deleteReplaced();
                // And the task's next run, which cleans up what a failed write left behind
                tier.copyEligible();
                tier.deleteReplaced();
              });

      RemoteLogManifest stored = handover.assertTheNewestLeaderOwnsAWholeManifest(failures);
      String context = handover.context();
      assertThat(stored.copiedEnd()).as(context).isEqualTo(end);
      // Read from the start: offsets only go up, and every key's last value is its newest
      Map<String, Entry> last = new HashMap<>();
      long previous = -1;
      for (Entry e : TieredReads.readAll(handover.newest(), handover.newestLog())) {
        assertThat(e.offset()).as(context).isGreaterThan(previous);
        previous = e.offset();
        last.put(e.key(), e);
      }
      assertThat(last).as(context).hasSize(KEYS);
      for (int k = 0; k < KEYS; k++) {
        Entry newestOfKey = last.get("k" + k);
        assertThat(newestOfKey.value()).as(context).isEqualTo(value(k, VERSIONS - 1));
        assertThat(newestOfKey.offset()).as(context).isEqualTo((long) KEYS * (VERSIONS - 1) + k);
      }
    }
  }
}
