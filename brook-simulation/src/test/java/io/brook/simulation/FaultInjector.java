package io.brook.simulation;

import io.brook.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The faults of a run, drawn from its seed: every few hundred milliseconds until {@code untilMs},
 * one of a crash of a broker (a process crash, or a machine crash that loses the page cache, then a
 * restart from its files; or, a quarter of the time, a controlled shutdown and a restart; or, an
 * eighth, a failed disk: the broker shuts itself down and restarts) or of a controller node (then a
 * restart as a follower), a pause of a node (it stops sending and receiving, as in a long GC
 * pause), or a network partition between two nodes, both ways or one way only. Message loss and
 * delay are the network's, also drawn from the seed.
 */
final class FaultInjector {
  private final Simulation simulation;
  private final Random random;
  private final long untilMs;
  private int crashes;
  private int lossyCrashes;
  private int cleanShutdowns;
  private int cleanRestarts;
  private int controllerCrashes;
  private int diskFailures;
  private int lossyDiskFailures;

  /**
   * Brokers in a crash episode: crashed, and not yet back in the ISR of every partition since. The
   * value says whether the last crash lost the page cache.
   */
  private final Map<Integer, Boolean> crashed = new HashMap<>();

  private int pauses;
  private int partitions;
  private int oneWayCuts;

  FaultInjector(Simulation simulation, Random random, long untilMs) {
    this.simulation = simulation;
    this.random = random;
    this.untilMs = untilMs;
  }

  void start() {
    scheduleNext();
  }

  int crashes() {
    return crashes;
  }

  int lossyCrashes() {
    return lossyCrashes;
  }

  /** Controlled shutdowns of a broker (SIGTERM), each followed by a restart. */
  int cleanShutdowns() {
    return cleanShutdowns;
  }

  /** Those of {@link #cleanShutdowns} whose broker stopped and came back. */
  int cleanRestarts() {
    return cleanRestarts;
  }

  /** Failed disks of a broker, each followed by the broker's own shutdown and a restart. */
  int diskFailures() {
    return diskFailures;
  }

  /** Those of {@link #diskFailures} whose disk lost what had not been fsynced. */
  int lossyDiskFailures() {
    return lossyDiskFailures;
  }

  int controllerCrashes() {
    return controllerCrashes;
  }

  int pauses() {
    return pauses;
  }

  /** Network partitions, both ways and one way. */
  int partitions() {
    return partitions;
  }

  /** Those of {@link #partitions} that cut one direction only. */
  int oneWayCuts() {
    return oneWayCuts;
  }

  private void scheduleNext() {
    long delay = 200 + random.nextInt(800);
    if (simulation.nowMs() + delay < untilMs) {
      simulation.scheduler().schedule("fault", this::inject, delay);
    }
  }

  /**
   * A process crash, or a machine crash that loses the page cache. A lossy crash is drawn only when
   * no other broker is in a crash episode, and no broker crashes while another's lossy episode is
   * open: Kafka's guarantee with {@code min.insync.replicas=2} covers one replica at a time
   * restarting without a clean shutdown (it cannot tell a killed process from a lost machine), as
   * docs/simulation.md explains.
   */
  private void crash(SimulatedBroker broker) {
    if (broker.process().isEmpty()) {
      return;
    }
    int id = broker.nodeId();
    boolean lossy = random.nextBoolean();
    boolean keepLatestEpochCheckpoints = random.nextBoolean();
    long downMs = 100 + random.nextInt(2_000);
    if (!openEpisode(id, lossy)) {
      return;
    }
    crashes++;
    if (lossy) {
      lossyCrashes++;
    }
    simulation.record(
        (lossy ? "lossy crash" : "crash") + " broker " + id + " for " + downMs + "ms");
    broker.crash(lossy, keepLatestEpochCheckpoints);
    simulation
        .scheduler()
        .schedule(
            "restart",
            () -> {
              simulation.record("restart broker " + id);
              broker.start();
              simulation.afterEvent();
            },
            downMs);
  }

  /**
   * A controlled shutdown (SIGTERM): the broker asks the controller to move its leaderships and
   * take it out of every ISR, stops once the controller agrees, and restarts 0.1-2.1 s later as a
   * life that follows a clean shutdown. It opens a crash episode like a process crash (its log is
   * behind when it returns), so no broker loses its page cache meanwhile. A broker that cannot
   * reach the controller keeps asking; a crash meanwhile ends that life the hard way instead.
   */
  private void shutDownCleanly(SimulatedBroker broker) {
    if (broker.process().isEmpty()) {
      return;
    }
    int id = broker.nodeId();
    if (!openEpisode(id, false)) {
      return;
    }
    long downMs = 100 + random.nextInt(2_000);
    cleanShutdowns++;
    simulation.record(
        "controlled shutdown of broker " + id + ", back " + downMs + "ms after it stops");
    broker.shutDown(
        () ->
            simulation
                .scheduler()
                .schedule(
                    "restart",
                    () -> {
                      simulation.record("restart broker " + id + " after its clean shutdown");
                      cleanRestarts++;
                      broker.start();
                      simulation.afterEvent();
                    },
                    downMs));
  }

  /**
   * A broker's disk fails: its log directory goes offline, the broker shuts itself down (a
   * controlled shutdown, as the real server does when its last log directory fails) and restarts
   * 0.1-2.1 s after it stopped, as after an unclean shutdown. Half the time the disk also lost what
   * had not been fsynced, which makes the episode a lossy one with the same rules as a machine
   * crash's.
   */
  private void failDisk(SimulatedBroker broker) {
    if (broker.process().filter(life -> !life.stopping()).isEmpty()) {
      return;
    }
    int id = broker.nodeId();
    boolean lossy = random.nextBoolean();
    boolean keepLatestEpochCheckpoints = random.nextBoolean();
    long downMs = 100 + random.nextInt(2_000);
    if (!openEpisode(id, lossy)) {
      return;
    }
    diskFailures++;
    if (lossy) {
      lossyDiskFailures++;
    }
    simulation.record(
        (lossy ? "disk failure losing unflushed writes" : "disk failure")
            + " on broker "
            + id
            + ", back "
            + downMs
            + "ms after it stops");
    broker.failDisk(
        lossy,
        keepLatestEpochCheckpoints,
        () ->
            simulation
                .scheduler()
                .schedule(
                    "restart",
                    () -> {
                      simulation.record("restart broker " + id + " after its disk failure");
                      broker.start();
                      simulation.afterEvent();
                    },
                    downMs));
  }

  /**
   * Opens (or extends) broker {@code id}'s crash episode, unless the rules forbid it: no broker
   * fails while another's lossy episode is open, and a lossy failure only while no other broker is
   * in an episode.
   *
   * @return whether the fault may happen
   */
  private boolean openEpisode(int id, boolean lossy) {
    endRecoveredEpisodes();
    boolean othersCrashed = crashed.keySet().stream().anyMatch(other -> other != id);
    boolean otherLossy =
        crashed.entrySet().stream().anyMatch(e -> e.getKey() != id && e.getValue());
    if (otherLossy || (lossy && othersCrashed)) {
      return false;
    }
    crashed.merge(id, lossy, Boolean::logicalOr);
    return true;
  }

  /**
   * A broker's episode ends once a life that started after it is running, unfenced by the
   * controller, and in the ISR of every partition.
   */
  private void endRecoveredEpisodes() {
    MetadataImage image = simulation.controllers().image();
    crashed
        .keySet()
        .removeIf(
            id ->
                // A life that is stopping (its disk failed, or it shuts down) is still in its
                // episode, and so is a new life until the controller has registered and unfenced
                // it: until then the ISRs are those of the life before.
                simulation
                        .broker(id)
                        .process()
                        .filter(life -> !life.stopping() && life.accepting())
                        .isPresent()
                    && Simulation.PARTITIONS.stream()
                        .allMatch(
                            tp ->
                                image
                                    .partition(tp.topic(), tp.partition())
                                    .map(p -> p.isr().contains(id))
                                    .orElse(true)));
  }

  private void inject() {
    List<Integer> nodes = new ArrayList<>(Simulation.BROKER_IDS);
    nodes.addAll(ControllerQuorum.NODE_IDS);
    switch (random.nextInt(3)) {
      case 0 -> {
        int node = nodes.get(random.nextInt(nodes.size()));
        if (Simulation.BROKER_IDS.contains(node)) {
          int kind = random.nextInt(8);
          if (kind < 2) {
            shutDownCleanly(simulation.broker(node));
          } else if (kind == 2) {
            failDisk(simulation.broker(node));
          } else {
            crash(simulation.broker(node));
          }
        } else {
          crashController(node);
        }
      }
      case 1 -> {
        int node = nodes.get(random.nextInt(nodes.size()));
        long ms = 50 + random.nextInt(1_500);
        pauses++;
        simulation.record("pause node " + node + " for " + ms + "ms");
        simulation.network().pause(node, ms);
      }
      default -> {
        int i = random.nextInt(nodes.size());
        int a = nodes.get(i);
        int b = nodes.get((i + 1 + random.nextInt(nodes.size() - 1)) % nodes.size());
        long ms = 100 + random.nextInt(2_000);
        boolean oneWay = random.nextInt(3) == 0;
        partitions++;
        if (oneWay) {
          // Only a's messages to b are lost: b's requests reach a and a's answers do not, a's
          // requests never reach b; heartbeats, fetches and Raft each see it differently.
          oneWayCuts++;
          simulation.record("one-way cut " + a + "->" + b + " for " + ms + "ms");
          simulation.network().cutOneWay(a, b);
        } else {
          simulation.record("partition " + a + "|" + b + " for " + ms + "ms");
          simulation.network().cut(a, b);
        }
        simulation
            .scheduler()
            .schedule(
                "heal",
                () -> {
                  if (oneWay) {
                    simulation.record("heal " + a + "->" + b);
                    simulation.network().healOneWay(a, b);
                  } else {
                    simulation.record("heal " + a + "|" + b);
                    simulation.network().heal(a, b);
                  }
                },
                ms);
      }
    }
    simulation.afterEvent();
    scheduleNext();
  }

  /** A controller node crashes, and restarts as a follower 0.1-2.1 s later. */
  private void crashController(int node) {
    long downMs = 100 + random.nextInt(2_000);
    if (!simulation.controllers().isUp(node)) {
      return;
    }
    controllerCrashes++;
    simulation.record("crash controller " + node + " for " + downMs + "ms");
    simulation.controllers().crash(node, downMs);
  }
}
