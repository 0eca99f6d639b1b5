package io.brook.storage.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.log.PartitionLog;
import io.brook.storage.testing.LogFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicIdPartition;

/**
 * One order of leaders of one partition working against one store at once, a step at a time ({@link
 * Interleaver}, {@link SteppedSegmentStore}): the leaders of epochs 1, 2, ... each on a log of its
 * own copied from one template, what the handover explorers share, and the checks every order must
 * pass.
 */
final class Handover implements AutoCloseable {
  /** How many times a leader runs its task again after an I/O error before it gives up. */
  private static final int TASK_RUNS = 20;

  /** A leader's remote-storage work, as one run of the remote log manager's task. */
  interface Task {
    void run(TieredPartition tier, int epoch) throws IOException;
  }

  final InMemorySegmentStore store = new InMemorySegmentStore();
  final Interleaver interleaver;
  final SteppedSegmentStore stepped;
  private final Path dir;
  private final TopicIdPartition tp;
  private final LongSupplier cleanedUpTo;
  private final long seed;
  private final List<LogFixture> fixtures = new ArrayList<>();
  private final List<PartitionLog> logs = new ArrayList<>();
  private final List<TieredPartition> tiers = new ArrayList<>();

  /**
   * @param lostAnswers whether some of the leaders' manifest writes lose their answers
   * @param cleanedUpTo the local cleaner's first dirty offset, for every leader's tier
   */
  Handover(
      Path dir, long seed, boolean lostAnswers, TopicIdPartition tp, LongSupplier cleanedUpTo) {
    this.dir = dir;
    this.seed = seed;
    this.tp = tp;
    this.cleanedUpTo = cleanedUpTo;
    this.interleaver = new Interleaver(seed);
    this.stepped =
        new SteppedSegmentStore(
            store, interleaver, lostAnswers ? new SplittableRandom(~seed) : null);
  }

  /**
   * Adds the leader of the next epoch, on a copy of {@code template}'s log files opened with these
   * checkpoints (its tier is opened when its turn comes, or by {@link #open}).
   */
  void addLeader(LogFixture template, LogFixture fixture, long recoveryPoint, long highWatermark)
      throws IOException {
    copyTree(template.dir(), fixture.dir());
    fixtures.add(fixture);
    logs.add(fixture.open(recoveryPoint, 0, highWatermark, true));
    tiers.add(null);
  }

  /** The directory for the next leader's log. */
  Path nextLeaderDir() {
    return dir.resolve("epoch-" + (logs.size() + 1));
  }

  List<PartitionLog> logs() {
    return logs;
  }

  /** Opens the tier of the leader of {@code epoch} (1 for the first added). */
  TieredPartition open(int epoch) throws IOException {
    RemoteIndexCache cache = new RemoteIndexCache(dir.resolve("cache-" + epoch), 1 << 20);
    TieredPartition tier =
        TieredPartition.open(
            stepped,
            cache,
            logs.get(epoch - 1),
            tp.topicId(),
            fixtures.get(epoch - 1).time(),
            epoch,
            () -> true,
            cleanedUpTo);
    tiers.set(epoch - 1, tier);
    return tier;
  }

  /**
   * Runs every leader at once, each opening its tier (unless opened already) and running {@code
   * task}; after an I/O error a leader runs it again, as the remote log manager does at its next
   * tick, and a conflict (a later leader's manifest) ends it.
   *
   * @return each leader's failure (null if none), by name ("epoch N")
   */
  Map<String, Throwable> run(Task task) throws InterruptedException {
    Map<String, Callable<?>> actors = new LinkedHashMap<>();
    for (int i = 1; i <= logs.size(); i++) {
      int epoch = i;
      actors.put(
          "epoch " + epoch,
          () -> {
            for (int run = 1; ; run++) {
              try {
                TieredPartition tier = tiers.get(epoch - 1);
                task.run(tier == null ? open(epoch) : tier, epoch);
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
    return interleaver.run(actors);
  }

  /** The seed and every step, for failure messages. */
  String context() {
    return "seed " + seed + ", steps:\n  " + String.join("\n  ", interleaver.trace());
  }

  TieredPartition newest() {
    return tiers.get(tiers.size() - 1);
  }

  PartitionLog newestLog() {
    return logs.get(logs.size() - 1);
  }

  /**
   * What every order must end with: the older leaders stopped on finding a newer one's manifest if
   * at all, the newest never; no segment's objects deleted while the stored manifest named it
   * copied (followers drop their local copies by it); the newest leader owns the stored manifest,
   * and every segment it names is copied whole and stored.
   *
   * @return the stored manifest
   */
  RemoteLogManifest assertTheNewestLeaderOwnsAWholeManifest(Map<String, Throwable> failures)
      throws IOException {
    String context = context();
    int newestEpoch = logs.size();
    failures.forEach(
        (name, failure) -> {
          if (name.equals("epoch " + newestEpoch)) {
            assertThat(failure).as("the newest leader's failure; " + context).isNull();
          } else if (failure != null) {
            assertThat(failure).as(context).isInstanceOf(ManifestConflictException.class);
          }
        });
    assertThat(stepped.deletedWhileFinished)
        .as("objects deleted while the stored manifest named them copied; " + context)
        .isEmpty();
    RemoteLogManifest stored = RemoteLogManifest.decode(store.readManifest(tp).orElseThrow());
    assertThat(newest().fenced()).as(context).isFalse();
    assertThat(stored).as(context).isEqualTo(newest().manifest());
    assertThat(stored.leaderEpoch()).as(context).isEqualTo(newestEpoch);
    List<String> objects = store.listObjects(tp);
    for (RemoteSegment s : stored.segments()) {
      assertThat(s.state()).as(context).isEqualTo(RemoteSegmentState.COPY_SEGMENT_FINISHED);
      assertThat(objects).as(context).anyMatch(k -> k.contains(s.id()) && k.endsWith(".log"));
    }
    return stored;
  }

  @Override
  public void close() throws IOException {
    for (PartitionLog log : logs) {
      log.close();
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.createDirectories(to.getParent());
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : (Iterable<Path>) files::iterator) {
        Files.copy(source, to.resolve(from.relativize(source).toString()));
      }
    }
  }
}
