package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The long replication fault campaign: {@code brook.faults.cycles} (50) random fault cycles on one
 * workload, with the checks of {@link ReplicationFaultsIT}. Each cycle SIGKILLs, SIGSTOPs or
 * SIGTERMs (then restarts or resumes), cuts from the active controller or isolates (the last two in
 * network namespaces only) a random node, a partition leader or the active controller, for 0.5-15
 * s, then waits until every ISR is full and every partition takes writes again.
 *
 * <p>Not in the default suite (its name does not end in IT): run it with the {@code fault-campaign}
 * profile, {@code mvn -B -pl brook-tests -am verify -Pfault-campaign -Dbrook.faults.cycles=50
 * [-Dbrook.faults.seed=S]}. The seed is printed; the same seed repeats the same faults.
 */
class ReplicationFaultCampaign {
  /** The kinds of fault the campaign picks from. */
  private enum Kind {
    KILL,
    PAUSE,
    STOP,
    CUT_FROM_CONTROLLER,
    ISOLATE
  }

  @TempDir static Path dir;
  private static ClusterHarness cluster;
  private static Optional<String> noNetworkFaults;

  @BeforeAll
  static void start() throws Exception {
    noNetworkFaults = ClusterHarness.networkFaultsUnavailableReason();
    cluster = FaultScenario.startCluster(dir, "ReplicationFaultCampaign");
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  // Beyond the suite's 5-minute default: a cycle takes 10-30 s. Every wait in a cycle is bounded
  // (a restart 90 s, the recovery 2 minutes), so a hang still fails.
  @Timeout(value = 12, unit = TimeUnit.HOURS)
  void randomFaultCycles() throws Exception {
    int cycles = Integer.getInteger("brook.faults.cycles", 50);
    long seed = Long.getLong("brook.faults.seed", System.nanoTime());
    System.out.printf(
        "Fault campaign: %d cycles, seed %d (repeat with -Dbrook.faults.seed=%d)%n",
        cycles, seed, seed);
    Random random = new Random(seed);
    List<Kind> kinds =
        noNetworkFaults.isEmpty()
            ? List.of(Kind.values())
            : List.of(Kind.KILL, Kind.PAUSE, Kind.STOP);
    long started = System.nanoTime();
    try (FaultScenario s = FaultScenario.start(cluster, "campaign")) {
      for (int cycle = 1; cycle <= cycles; cycle++) {
        Node controller = s.activeController();
        Node target =
            switch (random.nextInt(3)) {
              case 0 -> s.leaderOf(random.nextInt(FaultScenario.PARTITIONS));
              case 1 -> controller;
              default -> cluster.nodes().get(random.nextInt(cluster.nodes().size()));
            };
        Kind kind = kinds.get(random.nextInt(kinds.size()));
        if (kind == Kind.CUT_FROM_CONTROLLER && target == controller) {
          kind = Kind.ISOLATE;
        }
        Duration hold = Duration.ofMillis(500 + random.nextInt(14_500));
        s.faultStarts(
            String.format("#%d %s %s, %d ms", cycle, kind, s.nodeName(target), hold.toMillis()));
        inject(kind, target, controller, hold);
        s.awaitHealthy(Duration.ofMinutes(2));
        s.awaitWritable(Duration.ofSeconds(60));
        s.faultEnds();
        FaultScenario.sleep(Duration.ofMillis(500 + random.nextInt(2_000)));
      }
      s.finish();
    }
    System.out.printf(
        "Fault campaign of %d cycles (seed %d) passed in %d s%n",
        cycles, seed, (System.nanoTime() - started) / 1_000_000_000);
  }

  private static void inject(Kind kind, Node target, Node controller, Duration hold)
      throws Exception {
    switch (kind) {
      case KILL -> {
        target.kill();
        FaultScenario.sleep(hold);
        target.restart();
      }
      case STOP -> {
        target.stop();
        FaultScenario.sleep(hold);
        target.restart();
      }
      case PAUSE -> {
        target.pause();
        try {
          FaultScenario.sleep(hold);
        } finally {
          target.resume();
        }
      }
      case CUT_FROM_CONTROLLER -> {
        cluster.cut(target, controller);
        try {
          FaultScenario.sleep(hold);
        } finally {
          cluster.heal(target, controller);
        }
      }
      case ISOLATE -> {
        cluster.isolate(target);
        try {
          FaultScenario.sleep(hold);
        } finally {
          cluster.rejoin(target);
        }
      }
    }
  }
}
