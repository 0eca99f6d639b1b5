package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.Batches;
import io.brook.storage.testing.LogFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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
 * {@link Interleaver}), in one scenario with some manifest writes stored but their answers lost.
 * Whatever the order, no segment's objects are deleted while the stored manifest names it copied
 * (followers drop their local copies by it), the newest leader ends up owning the manifest, the
 * manifest names only segments whose objects are stored, and every record below the high watermark
 * is readable from the newest leader, remotely or locally.
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
  private static final int SCHEDULES = Integer.getInteger("brook.tiered.schedules", 100);
  private static final long FIRST_SEED = Long.getLong("brook.tiered.seed", 1L);

  /** Six one-batch segments (the last active): 0 is past retention, 1 to 4 are to be copied. */
  private static final int BATCHES = 6;

  private static final long HIGH_WATERMARK = 5;

  @TempDir Path root;

  /** The log every leader starts from, written once: each schedule copies its files. */
  private LogFixture template;

  private final List<byte[]> appended = new ArrayList<>();

  /**
   * Whether one in {@link #LOST_ANSWER_ODDS} of the leaders' manifest writes is stored but answered
   * with an error (as an S3 request whose response was lost) or with a conflict (as the client's
   * retry of it, refused because the first attempt's version is in place): the leader's task then
   * fails and runs again, as the remote log manager runs it again at its next tick.
   */
  private boolean lostAnswers;

  private static final int LOST_ANSWER_ODDS = 8;

  /** How many times an actor runs its task again after an I/O error before it gives up. */
  private static final int TASK_RUNS = 20;

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

  private static void copyTree(Path from, Path to) throws IOException {
    Files.createDirectories(to.getParent());
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : (Iterable<Path>) files::iterator) {
        Files.copy(source, to.resolve(from.relativize(source).toString()));
      }
    }
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

  /**
   * Leaders of epochs 1 to {@code leaders}, all at once: each opens the tier (epoch 1 before the
   * others start if {@code firstCopied}, and then copies segment 0 too), copies what it finds
   * uncopied and expires what retention no longer keeps.
   */
  private void runSchedule(int leaders, boolean firstCopied, long seed) throws Exception {
    Path dir = root.resolve(leaders + "-leaders-" + firstCopied + "-seed-" + seed);
    InMemorySegmentStore store = new InMemorySegmentStore();
    Interleaver interleaver = new Interleaver(seed);
    SteppedStore stepped =
        new SteppedStore(store, interleaver, lostAnswers ? new Random(seed) : null);
    List<LogFixture> fixtures = new ArrayList<>();
    List<PartitionLog> logs = new ArrayList<>();
    for (int epoch = 1; epoch <= leaders; epoch++) {
      LogFixture fixture = fixture(dir.resolve("epoch-" + epoch));
      copyTree(template.dir(), fixture.dir());
      fixtures.add(fixture);
      logs.add(fixture.open(BATCHES, 0, 1, true));
    }
    List<TieredPartition> tiers = new ArrayList<>();
    for (int i = 0; i < leaders; i++) {
      tiers.add(null);
    }
    if (firstCopied) {
      tiers.set(0, open(stepped, dir, fixtures.get(0), logs.get(0), 1));
      assertThat(tiers.get(0).copyEligible()).isEqualTo(1);
    }
    for (PartitionLog log : logs) {
      log.updateHighWatermark(HIGH_WATERMARK);
    }

    Map<String, Callable<?>> actors = new LinkedHashMap<>();
    for (int i = 0; i < leaders; i++) {
      int index = i;
      int epoch = i + 1;
      actors.put(
          "epoch " + epoch,
          () -> {
            for (int run = 1; ; run++) {
              try {
                if (tiers.get(index) == null) {
                  tiers.set(index, open(stepped, dir, fixtures.get(index), logs.get(index), epoch));
                }
                tiers.get(index).copyEligible();
                tiers.get(index).expire();
                // And the task's next run, which cleans up what a failed write left behind
                tiers.get(index).copyEligible();
                return null;
              } catch (ManifestConflictException e) {
                throw e;
              } catch (IOException e) {
                if (run == TASK_RUNS) {
                  throw e;
                }
              }
            }
          });
    }
    Map<String, Throwable> failures = interleaver.run(actors);

    String context = "seed " + seed + ", steps:\n  " + String.join("\n  ", interleaver.trace());
    // The older leaders may stop on finding a newer one's manifest, and only so; the newest
    // leader never stops
    failures.forEach(
        (name, failure) -> {
          if (name.equals("epoch " + leaders)) {
            assertThat(failure).as("the newest leader's failure; " + context).isNull();
          } else if (failure != null) {
            assertThat(failure).as(context).isInstanceOf(ManifestConflictException.class);
          }
        });
    assertThat(stepped.deletedWhileFinished)
        .as("objects deleted while the stored manifest named them copied; " + context)
        .isEmpty();
    TieredPartition newest = tiers.get(leaders - 1);
    RemoteLogManifest stored = RemoteLogManifest.decode(store.readManifest(TP).orElseThrow());
    assertThat(newest.fenced()).as(context).isFalse();
    assertThat(stored).as(context).isEqualTo(newest.manifest());
    assertThat(stored.leaderEpoch()).as(context).isEqualTo(leaders);

    // Every segment the manifest names is copied whole and stored
    List<String> objects = store.listObjects(TP);
    for (RemoteSegment s : stored.segments()) {
      assertThat(s.state()).as(context).isEqualTo(RemoteSegmentState.COPY_SEGMENT_FINISHED);
      assertThat(objects).as(context).anyMatch(k -> k.contains(s.id()) && k.endsWith(".log"));
    }
    // Retention took segment 0 only, and every record from there to the high watermark is
    // readable from the newest leader: remotely below what it copied, locally above
    assertThat(newest.logStartOffset()).as(context).isEqualTo(1);
    assertThat(stored.copiedEnd()).as(context).isEqualTo(HIGH_WATERMARK);
    PartitionLog newestLog = logs.get(leaders - 1);
    assertThat(newestLog.segments().iterator().next().baseOffset())
        .as("the newest leader's first local offset; " + context)
        .isLessThanOrEqualTo(stored.copiedEnd());
    for (long offset = 1; offset < HIGH_WATERMARK; offset++) {
      MemoryRecords read = newest.read(offset, 1 << 20, Long.MAX_VALUE, true);
      assertThat(Batches.bytes(read))
          .as("offset " + offset + "; " + context)
          .isEqualTo(appended.get((int) offset));
    }
    for (PartitionLog log : logs) {
      log.close();
    }
  }

  private static TieredPartition open(
      RemoteSegmentStore store, Path dir, LogFixture fixture, PartitionLog log, int epoch)
      throws IOException {
    RemoteIndexCache cache = new RemoteIndexCache(dir.resolve("cache-" + epoch), 1 << 20);
    return TieredPartition.open(
        store, cache, log, TOPIC_ID, fixture.time(), epoch, () -> true, () -> 0L);
  }

  /** The store with a step before every call, named for the trace. */
  private static final class SteppedStore extends ForwardingSegmentStore {
    private final Interleaver interleaver;

    /** Segments whose objects were deleted while the stored manifest named them finished. */
    final List<String> deletedWhileFinished = new ArrayList<>();

    /** Null: every answer arrives; else draws which of the actors' manifest writes lose theirs. */
    private final Random lostAnswers;

    SteppedStore(RemoteSegmentStore delegate, Interleaver interleaver, Random lostAnswers) {
      super(delegate);
      this.interleaver = interleaver;
      this.lostAnswers = lostAnswers;
    }

    private static String name(RemoteSegment s) {
      return "segment " + s.baseOffset() + " (" + s.id().substring(0, 8) + ")";
    }

    private static String describe(byte[] manifest) {
      RemoteLogManifest m = RemoteLogManifest.decode(manifest);
      return "epoch "
          + m.leaderEpoch()
          + ", start "
          + m.logStartOffset()
          + ", "
          + m.segments().stream()
              .map(s -> s.baseOffset() + ":" + s.id().substring(0, 8) + ":" + s.state())
              .collect(Collectors.joining(" ", "[", "]"));
    }

    @Override
    public void copySegment(TopicIdPartition tp, RemoteSegment segment, LocalSegmentFiles files)
        throws IOException {
      interleaver.step("copies " + name(segment));
      super.copySegment(tp, segment, files);
    }

    @Override
    public void deleteSegment(TopicIdPartition tp, RemoteSegment segment) throws IOException {
      interleaver.step("deletes " + name(segment));
      // A follower trusts the stored manifest to delete its local copy of what it names copied,
      // so objects of a segment named finished there must never go
      Optional<byte[]> stored = super.readManifest(tp);
      if (stored.isPresent()
          && RemoteLogManifest.decode(stored.get()).segments().stream()
              .anyMatch(
                  s ->
                      s.id().equals(segment.id())
                          && s.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED)) {
        deletedWhileFinished.add(name(segment));
      }
      super.deleteSegment(tp, segment);
    }

    @Override
    public Optional<byte[]> readManifest(TopicIdPartition tp) throws IOException {
      interleaver.step("reads the manifest");
      return super.readManifest(tp);
    }

    @Override
    public Optional<StoredManifest> readManifestVersion(TopicIdPartition tp) throws IOException {
      interleaver.step("reads the manifest");
      return super.readManifestVersion(tp);
    }

    @Override
    public String replaceManifest(
        TopicIdPartition tp, byte[] manifest, Optional<String> expectedVersion) throws IOException {
      interleaver.step("replaces the manifest with " + describe(manifest));
      String version = super.replaceManifest(tp, manifest, expectedVersion);
      if (lostAnswers != null
          && interleaver.isActor()
          && lostAnswers.nextInt(LOST_ANSWER_ODDS) == 0) {
        if (lostAnswers.nextBoolean()) {
          interleaver.step("loses the answer to its stored write");
          throw new IOException("the answer to a stored manifest write was lost");
        }
        interleaver.step("retries its stored write and is refused by it");
        throw new ManifestConflictException("a retry of a stored manifest write found it in place");
      }
      return version;
    }

    @Override
    public void writeManifest(TopicIdPartition tp, byte[] manifest) throws IOException {
      interleaver.step("writes the manifest " + describe(manifest));
      super.writeManifest(tp, manifest);
    }

    @Override
    public byte[] fetchLogRange(TopicIdPartition tp, RemoteSegment segment, long start, int length)
        throws IOException {
      interleaver.step("reads " + name(segment));
      return super.fetchLogRange(tp, segment, start, length);
    }

    @Override
    public Optional<byte[]> fetchFile(
        TopicIdPartition tp, RemoteSegment segment, RemoteFileType type) throws IOException {
      interleaver.step("reads " + type + " of " + name(segment));
      return super.fetchFile(tp, segment, type);
    }

    @Override
    public void deleteManifest(TopicIdPartition tp) throws IOException {
      interleaver.step("deletes the manifest");
      super.deleteManifest(tp);
    }

    @Override
    public List<String> listObjects(TopicIdPartition tp) throws IOException {
      interleaver.step("lists the objects");
      return super.listObjects(tp);
    }
  }
}
