package io.brook.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long faults keep partitions unwritable, and when brokers are fenced, in simulated time: the
 * bounds that the process-level integration tests cannot hold on a loaded machine (there they only
 * check the behaviour). Each scenario runs with the network delays of many seeds (1-30 ms per
 * message, nothing lost) and the simulation's settings: a 600 ms broker session timeout checked
 * every 100 ms, heartbeats every 200 ms, a 300 ms controller election timeout. A partition's
 * unwritable window is the longest time, from the fault on, without an acknowledged write to it
 * (the producer writes to each partition every 60 ms).
 */
class FailureWindowsTest {
  static final int SEEDS = Integer.getInteger("brook.sim.windowSeeds", 25);
  static final long FAULT_AT_MS = 1_000;
  static final long MAX_DELAY_MS = 30;

  /** Fenced no sooner than a session timeout after its last heartbeat left it. */
  static final long FENCED_NOT_BEFORE_MS =
      Simulation.SESSION_TIMEOUT_MS - BrokerProcess.HEARTBEAT_MS;

  /** The session timeout from the last heartbeat's arrival, then the next fence check. */
  static final long FENCED_BY_MS =
      Simulation.SESSION_TIMEOUT_MS + MAX_DELAY_MS + ControllerQuorum.FENCE_CHECK_MS;

  /**
   * After a leader's crash or pause: fenced (above), then the new leader's image and its follower's
   * first fetch (three messages), the next produce to that partition and its answer.
   */
  static final long FAILOVER_WINDOW_MS = FENCED_BY_MS + 5 * MAX_DELAY_MS + 60;

  /**
   * With no broker fault (a controller failover, a controlled restart), well under the session
   * timeout: no partition waits for a fencing. A write is acknowledged within four message delays
   * and a follower fetch, and the producer writes to each partition every 60 ms; a leadership moved
   * by a controlled shutdown adds the metadata push and the new follower's first fetches.
   */
  static final long QUIET_WINDOW_MS = 400;

  /**
   * After a leader's disk fails: the broker notices at once (its log directory goes offline) and
   * asks for a controlled shutdown with its next heartbeat; then the moves of a controlled restart.
   */
  static final long DISK_FAILURE_WINDOW_MS = BrokerProcess.HEARTBEAT_MS + QUIET_WINDOW_MS;

  @TempDir Path dir;

  @Test
  void aCrashedLeaderIsFencedAfterItsSessionAndItsPartitionsAreWritableAgain() {
    long worst = forEverySeed((seed, window) -> brokerFault(seed, false, window));
    System.out.printf("leader crash: longest unwritable window %d ms%n", worst);
  }

  @Test
  void aLeaderPausedPastItsSessionIsFencedThenRejoinsWithoutRestart() {
    long worst = forEverySeed((seed, window) -> brokerFault(seed, true, window));
    System.out.printf("leader pause: longest unwritable window %d ms%n", worst);
  }

  @Test
  void aLeaderWhoseDiskFailsShutsItselfDownAndItsPartitionsMoveWithinAHeartbeat() {
    long worst = forEverySeed(this::leaderDiskFailure);
    System.out.printf("leader disk failure: longest unwritable window %d ms%n", worst);
  }

  @Test
  void aNewControllerTakesOverWithoutFencingAnyBrokerOrStoppingWrites() {
    long worst = forEverySeed(this::controllerCrash);
    System.out.printf("controller failover: longest unwritable window %d ms%n", worst);
  }

  @Test
  void aRollingRestartKeepsEveryPartitionWritable() {
    long worst = forEverySeed(this::rollingRestart);
    System.out.printf("rolling restart: longest unwritable window %d ms%n", worst);
  }

  /** Runs the scenario of every seed; the longest window any of them measured. */
  private long forEverySeed(SeedRun run) {
    long worst = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      long[] window = new long[1];
      Simulation.Result result = run.run(seed, window);
      assertThat(result.failure())
          .as("seed %d (replay: -Dbrook.sim.seed=%d)\n%s", seed, seed, result.traceTail())
          .isNull();
      worst = Math.max(worst, window[0]);
    }
    return worst;
  }

  private interface SeedRun {
    Simulation.Result run(long seed, long[] window);
  }

  private Simulation.Result run(long seed, long endMs, Start start, Finish finish) {
    return Simulation.run(
        seed,
        Simulation.filesParent(dir),
        new Simulation.Scenario() {
          @Override
          public long endMs() {
            return endMs;
          }

          @Override
          public void start(Simulation simulation) {
            start.start(simulation);
          }

          @Override
          public void finish(Simulation simulation) {
            finish.finish(simulation);
          }
        });
  }

  private interface Start {
    void start(Simulation simulation);
  }

  private interface Finish {
    void finish(Simulation simulation);
  }

  /** The leader of the first partition crashes (or pauses) past its session, then comes back. */
  private Simulation.Result brokerFault(long seed, boolean pause, long[] window) {
    int[] victim = new int[1];
    long[] fencedAt = {-1};
    List<TopicPartition> led = new ArrayList<>();
    return run(
        seed,
        4_000,
        simulation ->
            simulation
                .scheduler()
                .schedule(
                    "fault",
                    () -> {
                      victim[0] = firstPartitionsLeader(simulation, led);
                      watchFencing(simulation, victim[0], fencedAt);
                      SimulatedBroker broker = simulation.broker(victim[0]);
                      if (pause) {
                        simulation.record("pause broker " + victim[0]);
                        simulation.network().pause(victim[0], 1_000);
                      } else {
                        simulation.record("crash broker " + victim[0]);
                        broker.crash(false, true);
                        simulation.scheduler().schedule("restart", broker::start, 1_500);
                      }
                    },
                    FAULT_AT_MS - simulation.nowMs()),
        simulation -> {
          Invariants check = simulation.invariants();
          long fenced = fencedAt[0] - FAULT_AT_MS;
          if (fencedAt[0] < 0 || fenced < FENCED_NOT_BEFORE_MS || fenced > FENCED_BY_MS) {
            check.fail("broker " + victim[0] + " fenced " + fenced + " ms after the fault");
          }
          for (TopicPartition tp : led) {
            long w = unwritable(simulation, tp, FAULT_AT_MS, FAULT_AT_MS + 1_500);
            window[0] = Math.max(window[0], w);
            if (w > FAILOVER_WINDOW_MS) {
              check.fail(tp + " unwritable for " + w + " ms after the fault");
            }
          }
          requireRejoined(simulation, victim[0]);
        });
  }

  /**
   * The disk of the first partition's leader fails (for odd seeds losing what it had not fsynced):
   * the broker shuts itself down, its leaderships move, and it restarts 500 ms after it stopped,
   * recovers its logs and rejoins every ISR.
   */
  private Simulation.Result leaderDiskFailure(long seed, long[] window) {
    int[] victim = new int[1];
    long[] stoppedAt = {-1};
    List<TopicPartition> led = new ArrayList<>();
    return run(
        seed,
        4_000,
        simulation ->
            simulation
                .scheduler()
                .schedule(
                    "fault",
                    () -> {
                      victim[0] = firstPartitionsLeader(simulation, led);
                      SimulatedBroker broker = simulation.broker(victim[0]);
                      simulation.record("fail the disk of broker " + victim[0]);
                      broker.failDisk(
                          seed % 2 == 1,
                          true,
                          () -> {
                            stoppedAt[0] = simulation.nowMs();
                            simulation.scheduler().schedule("restart", broker::start, 500);
                          });
                    },
                    FAULT_AT_MS - simulation.nowMs()),
        simulation -> {
          Invariants check = simulation.invariants();
          if (stoppedAt[0] < 0) {
            check.fail("broker " + victim[0] + " did not shut down after its disk failed");
            return;
          }
          for (TopicPartition tp : led) {
            long w = unwritable(simulation, tp, FAULT_AT_MS, FAULT_AT_MS + 1_500);
            window[0] = Math.max(window[0], w);
            if (w > DISK_FAILURE_WINDOW_MS) {
              check.fail(tp + " unwritable for " + w + " ms after the disk failed");
            }
          }
          requireRejoined(simulation, victim[0]);
        });
  }

  /** The active controller crashes; another takes over from the committed log. */
  private Simulation.Result controllerCrash(long seed, long[] window) {
    long[] fencings = {0};
    long[] electedAt = {-1};
    int[] crashed = {-1};
    return run(
        seed,
        3_000,
        simulation -> {
          ControllerQuorum controllers = simulation.controllers();
          controllers.addListener(
              image -> {
                if (image.brokers().values().stream().anyMatch(b -> b.fenced())) {
                  fencings[0]++;
                }
              });
          simulation
              .scheduler()
              .schedule(
                  "crash active controller",
                  () -> {
                    crashed[0] = controllers.active().nodeId();
                    simulation.record("crash controller " + crashed[0]);
                    controllers.crash(crashed[0], 1_500);
                  },
                  FAULT_AT_MS - simulation.nowMs());
          simulation
              .scheduler()
              .schedulePeriodic(
                  "watch election",
                  () -> {
                    SimulatedController active = controllers.active();
                    if (electedAt[0] < 0
                        && crashed[0] >= 0
                        && active != null
                        && active.nodeId() != crashed[0]) {
                      electedAt[0] = simulation.nowMs();
                    }
                  },
                  1,
                  1);
        },
        simulation -> {
          Invariants check = simulation.invariants();
          long election = electedAt[0] - FAULT_AT_MS;
          if (electedAt[0] < 0
              || election
                  > ControllerQuorum.ELECTION_TIMEOUT_MS + ControllerQuorum.ELECTION_CHECK_MS) {
            check.fail("a new controller was elected " + election + " ms after the crash");
          }
          if (fencings[0] > 0) {
            check.fail("a broker was fenced across the controller failover");
          }
          for (TopicPartition tp : Simulation.PARTITIONS) {
            long w = unwritable(simulation, tp, FAULT_AT_MS, 2_000);
            window[0] = Math.max(window[0], w);
            if (w > QUIET_WINDOW_MS) {
              check.fail(tp + " unwritable for " + w + " ms across the controller failover");
            }
          }
        });
  }

  /**
   * Each broker in turn stops cleanly (a controlled shutdown moves its leaderships first) and
   * starts again; the next one only once it is back in every ISR.
   */
  private Simulation.Result rollingRestart(long seed, long[] window) {
    long[] doneAt = {-1};
    return run(
        seed,
        8_000,
        simulation -> restartFrom(simulation, 0, doneAt),
        simulation -> {
          Invariants check = simulation.invariants();
          if (doneAt[0] < 0) {
            check.fail("the rolling restart did not finish");
            return;
          }
          for (TopicPartition tp : Simulation.PARTITIONS) {
            long w = unwritable(simulation, tp, FAULT_AT_MS, doneAt[0]);
            window[0] = Math.max(window[0], w);
            if (w > QUIET_WINDOW_MS) {
              check.fail(tp + " unwritable for " + w + " ms during the rolling restart");
            }
          }
        });
  }

  private static void restartFrom(Simulation simulation, int index, long[] doneAt) {
    if (index == Simulation.BROKER_IDS.size()) {
      doneAt[0] = simulation.nowMs();
      return;
    }
    int id = Simulation.BROKER_IDS.get(index);
    SimulatedBroker broker = simulation.broker(id);
    long delay = index == 0 ? FAULT_AT_MS - simulation.nowMs() : 200;
    simulation
        .scheduler()
        .schedule(
            "stop broker " + id,
            () -> {
              simulation.record("controlled shutdown of broker " + id);
              broker.shutDown(
                  () ->
                      simulation
                          .scheduler()
                          .schedule(
                              "start broker " + id,
                              () -> {
                                simulation.record("start broker " + id);
                                broker.start();
                                awaitInEveryIsr(
                                    simulation,
                                    id,
                                    () -> restartFrom(simulation, index + 1, doneAt));
                              },
                              100));
            },
            delay);
  }

  private static void awaitInEveryIsr(Simulation simulation, int id, Runnable then) {
    simulation
        .scheduler()
        .schedule(
            "await isr " + id,
            () -> {
              if (inEveryIsr(simulation.controllers().image(), id)) {
                then.run();
              } else {
                awaitInEveryIsr(simulation, id, then);
              }
            },
            20);
  }

  private static boolean inEveryIsr(MetadataImage image, int id) {
    return Simulation.PARTITIONS.stream()
        .allMatch(
            tp ->
                image
                    .partition(tp.topic(), tp.partition())
                    .map(p -> p.isr().contains(id))
                    .orElse(false));
  }

  private static void requireRejoined(Simulation simulation, int id) {
    MetadataImage image = simulation.controllers().image();
    boolean unfenced = image.broker(id).map(b -> !b.fenced()).orElse(false);
    if (!unfenced || !inEveryIsr(image, id)) {
      simulation.invariants().fail("broker " + id + " did not rejoin every ISR by the end");
    }
  }

  private static void watchFencing(Simulation simulation, int id, long[] fencedAt) {
    LongSupplier now = simulation::nowMs;
    simulation
        .controllers()
        .addListener(
            image -> {
              if (fencedAt[0] < 0 && image.broker(id).map(b -> b.fenced()).orElse(false)) {
                fencedAt[0] = now.getAsLong();
              }
            });
  }

  /** The current leader of the first partition; adds every partition it leads to {@code led}. */
  private static int firstPartitionsLeader(Simulation simulation, List<TopicPartition> led) {
    MetadataImage image = simulation.controllers().image();
    int id = leader(image, Simulation.PARTITIONS.get(0));
    Simulation.PARTITIONS.stream().filter(tp -> leader(image, tp) == id).forEach(led::add);
    return id;
  }

  private static int leader(MetadataImage image, TopicPartition tp) {
    Optional<PartitionImage> p = image.partition(tp.topic(), tp.partition());
    return p.map(PartitionImage::leader).orElse(-1);
  }

  /** The longest time in {@code [fromMs, toMs]} without an acknowledged write to {@code tp}. */
  private static long unwritable(Simulation simulation, TopicPartition tp, long fromMs, long toMs) {
    long last = fromMs;
    long longest = 0;
    for (Workload.Acked write : simulation.workload().acked()) {
      if (!write.tp().equals(tp) || write.ackedMs() < fromMs) {
        continue;
      }
      if (write.ackedMs() > toMs) {
        break;
      }
      longest = Math.max(longest, write.ackedMs() - last);
      last = write.ackedMs();
    }
    return Math.max(longest, toMs - last);
  }
}
