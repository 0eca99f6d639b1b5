package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leaders of one partition handing its remote tier over while the ones they replace still copy and
 * expire, as when a leader cut off from the controller keeps believing it leads: every store call
 * of every leader is a step, and each seed runs the leaders in another order of their steps (an
 * {@link Interleaver}), in one scenario with some manifest writes stored but their answers lost, in
 * another with the replaced leader taking a DeleteRecords meanwhile. Whatever the order, no
 * segment's objects are deleted while the stored manifest names it copied (followers drop their
 * local copies by it), the newest leader ends up owning the manifest, the manifest names only
 * segments whose objects are stored, and every record below the high watermark is readable from the
 * newest leader, remotely or locally, from the log start an acknowledged DeleteRecords set on.
 *
 * <p>A deliberately broken handover (a new leader that cleans up unfinished copies without first
 * claiming the manifest, or a leader that cleans up after a lost answer without reading the
 * manifest again) fails here within the first few seeds. More orders: {@code
 * -Dbrook.tiered.schedules=20000}; one order again: {@code -Dbrook.tiered.seed=S
 * -Dbrook.tiered.schedules=1}.
 */
class TieredLeaderHandoverTest {
  private static final Uuid TOPIC_ID = Uuid.fromString("pn2xEh3vR6yqGvTq8Xm1NQ");
  private static final TopicIdPartition TP = new TopicIdPartition(TOPIC_ID, LogFixture.TP);
  private static final long HOUR = 3_600_000L;
  private static final int SCHEDULES = Integer.getInteger("brook.tiered.schedules", 60);
  private static final long FIRST_SEED = Long.getLong("brook.tiered.seed", 1L);

  /** Six one-batch segments (the last active): 0 is past retention, 1 to 4 are to be copied. */
  private static final int BATCHES = 6;

  private static final long HIGH_WATERMARK = 5;

  /** Where the DeleteRecords scenario moves the log start: into the copied segments. */
  private static final long DELETE_RECORDS_TO = 3;

  @TempDir Path root;

  /** The log every leader starts from, written once: each schedule copies its files. */
  private LogFixture template;

  private final List<byte[]> appended = new ArrayList<>();

  /**
   * Whether some of the leaders' manifest writes are stored but answered with an error or a
   * conflict ({@link SteppedSegmentStore}): the leader's task then fails and runs again ({@link
   * Handover#run}).
   */
  private boolean lostAnswers;

  @BeforeEach
  void writeTheTemplateLog() throws IOException {
    template = fixture(root.resolve("template"));
    try (PartitionLog log = template.open()) {
      long now = template.time().milliseconds();
      for (int i = 0; i < BATCHES; i++) {
        MemoryRecords batch = Batches.sized(1, 1024, i == 0 ? now - 2 * HOUR : now + i, i);
        log.appendAsLeader(batch, 0);
        appended.add(Batches.bytes(batch));
      }
    }
  }

  private static LogFixture fixture(Path dir) {
    return new LogFixture(dir)
        .config(
            LogConfig.builder()
                .segmentBytes(1500)
                .remoteStorageEnable(true)
                .retentionMs(HOUR)
                .localRetentionMs(0)
                .build());
  }

  @Test
  void aLeaderReplacedWhileItCopiesAndExpiresLosesNothing() throws Exception {
    for (long seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
      runSchedule(2, true, seed);
    }
  }

  @Test
  void twoHandoversInARowWhileBothOlderLeadersWriteLoseNothing() throws Exception {
    for (long seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
      runSchedule(3, true, seed);
    }
  }

  @Test
  void leadersRacingForAPartitionWithoutAManifestYetLoseNothing() throws Exception {
    for (long seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
      runSchedule(2, false, seed);
    }
  }

  @Test
  void aHandoverWhileManifestWritesLoseTheirAnswersLosesNothing() throws Exception {
    lostAnswers = true;
    for (long seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
      runSchedule(2, true, seed);
    }
  }

  @Test
  void aDeleteRecordsTheReplacedLeaderAcknowledgedOutlivesTheHandover() throws Exception {
    lostAnswers = true;
    for (long seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
      runSchedule(2, true, seed, DELETE_RECORDS_TO);
    }
  }

  private void runSchedule(int leaders, boolean firstCopied, long seed) throws Exception {
    runSchedule(leaders, firstCopied, seed, -1);
  }

  /**
   * Leaders of epochs 1 to {@code leaders}, all at once: each opens the tier (epoch 1 before the
   * others start if {@code firstCopied}, and then copies segment 0 too), copies what it finds
   * uncopied and expires what retention no longer keeps. With {@code deleteRecordsTo} at 0 or
   * above, the leader of epoch 1 also takes a DeleteRecords to that offset, between its copy and
   * its expiry; once it answered (its manifest write succeeded), no later leader may serve a record
   * below that offset again.
   */
  private void runSchedule(int leaders, boolean firstCopied, long seed, long deleteRecordsTo)
      throws Exception {
    Path dir =
        root.resolve(leaders + "-leaders-" + firstCopied + "-" + deleteRecordsTo + "-seed-" + seed);
    AtomicLong acknowledgedStart = new AtomicLong(-1);
    try (Handover handover = new Handover(dir, seed, lostAnswers, TP, () -> 0L)) {
      for (int epoch = 1; epoch <= leaders; epoch++) {
        handover.addLeader(template, fixture(handover.nextLeaderDir()), BATCHES, 1);
      }
      if (firstCopied) {
        assertThat(handover.open(1).copyEligible()).isEqualTo(1);
      }
      for (PartitionLog log : handover.logs()) {
        log.updateHighWatermark(HIGH_WATERMARK);
      }

      Map<String, Throwable> failures =
          handover.run(
              (tier, epoch) -> {
                tier.copyEligible();
                if (epoch == 1 && deleteRecordsTo >= 0) {
                  tier.moveLogStart(deleteRecordsTo);
                  acknowledgedStart.set(deleteRecordsTo);
                }
                tier.expire();
                // And the task's next run, which cleans up what a failed write left behind
                tier.copyEligible();
              });

      RemoteLogManifest stored = handover.assertTheNewestLeaderOwnsAWholeManifest(failures);
      // Retention took segment 0 only (and an acknowledged DeleteRecords what it named; one that
      // failed may have been stored or not), and every record from there to the high watermark
      // is readable from the newest leader: remotely below what it copied, locally above
      String context = handover.context();
      TieredPartition newest = handover.newest();
      long start = newest.logStartOffset();
      if (acknowledgedStart.get() >= 0) {
        assertThat(start)
            .as("log start after an acknowledged DeleteRecords; " + context)
            .isEqualTo(Math.max(1, acknowledgedStart.get()));
      } else if (deleteRecordsTo >= 0) {
        assertThat(start).as(context).isIn(1L, Math.max(1, deleteRecordsTo));
      } else {
        assertThat(start).as(context).isEqualTo(1);
      }
      assertThat(stored.copiedEnd()).as(context).isEqualTo(HIGH_WATERMARK);
      assertThat(handover.newestLog().segments().iterator().next().baseOffset())
          .as("the newest leader's first local offset; " + context)
          .isLessThanOrEqualTo(stored.copiedEnd());
      for (long offset = start; offset < HIGH_WATERMARK; offset++) {
        MemoryRecords read = newest.read(offset, 1 << 20, Long.MAX_VALUE, true);
        assertThat(Batches.bytes(read))
            .as("offset " + offset + "; " + context)
            .isEqualTo(appended.get((int) offset));
      }
    }
  }
}
