package io.brook.tests.cluster.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication under faults: three combined nodes as separate JVMs, a topic of 6 partitions with
 * replication factor 3 and {@code min.insync.replicas=2}, idempotent acks=all producers and a
 * consumer running throughout each fault ({@link FaultScenario}), then the checks of {@link
 * io.brook.cli.verify.ReplicationChecker}: every acknowledged record present exactly once, at its
 * offset, in send order; nothing a consumer saw ever replaced. Each test prints its faults'
 * unwritable windows.
 *
 * <p>The nodes run in network namespaces where they can be made (root, iproute2), so that a link
 * can be cut; elsewhere on loopback, and the cut test is skipped with the reason printed.
 *
 * <p>{@link ReplicationFaultCampaign} runs many random fault cycles with the same checks (Maven
 * profile {@code fault-campaign}); this class, in the default suite, takes about 2-3 minutes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicationFaultsIT {
  /** Longer than the 9 s broker session timeout, so that the paused or cut broker is fenced. */
  static final Duration PAST_SESSION_TIMEOUT = Duration.ofSeconds(12);

  @TempDir static Path dir;
  private static ClusterHarness cluster;
  private static Optional<String> noNetworkFaults;

  @BeforeAll
  static void start() throws Exception {
    noNetworkFaults = ClusterHarness.networkFaultsUnavailableReason();
    cluster = FaultScenario.startCluster(dir, "ReplicationFaultsIT");
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void sigkillOfALeaderLosesNoAcknowledgedRecord() throws Exception {
    try (FaultScenario s = FaultScenario.start(cluster, "sigkill")) {
      // Given a steady workload and the leader of partition 0, or of the first partition led by
      // a broker that is not also the active controller (killing that one is the next test)
      FaultScenario.sleep(Duration.ofSeconds(2));
      Node leader = leaderOtherThanTheController(s);

      // When it is killed, and restarted once writes go on without it
      killAndRestart(s, leader);

      // Then every check holds (the unwritable window is printed, a measurement)
      printWindow("SIGKILL", s.finish());
    }
  }

  @Test
  @Order(2)
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void sigkillOfTheActiveControllerLeadingPartitionsLosesNoAcknowledgedRecord() throws Exception {
    try (FaultScenario s = FaultScenario.start(cluster, "sigkill-controller")) {
      FaultScenario.sleep(Duration.ofSeconds(2));
      killAndRestart(s, s.activeController());
      printWindow("SIGKILL of the active controller", s.finish());
    }
  }

  private static void killAndRestart(FaultScenario s, Node victim) throws Exception {
    s.faultStarts("SIGKILL " + s.nodeName(victim) + ", restarted");
    victim.kill();
    s.awaitWritesResume(Duration.ofSeconds(60));
    victim.restart();
    s.awaitHealthy(Duration.ofSeconds(60));
    s.awaitWritable(Duration.ofSeconds(60));
    s.faultEnds();
  }

  /**
   * The unwritable window of a fault is a measurement here, not a bound: a loaded machine cannot
   * hold one. brook-simulation's FailureWindowsTest checks the bounds in simulated time.
   */
  private static void printWindow(String fault, Map<String, Long> windows) {
    System.out.printf("%s unwritable window: %d ms%n", fault, windows.values().iterator().next());
  }

  @Test
  @Order(3)
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void sigstopOfALeaderPastTheSessionTimeoutLosesNoAcknowledgedRecord() throws Exception {
    try (FaultScenario s = FaultScenario.start(cluster, "sigstop")) {
      FaultScenario.sleep(Duration.ofSeconds(2));
      Node leader = leaderOtherThanTheController(s);

      // When a leader (not the active controller) is paused past the session timeout, then
      // resumed
      s.faultStarts(
          "SIGSTOP " + s.nodeName(leader) + " for " + PAST_SESSION_TIMEOUT.toSeconds() + " s");
      leader.pause();
      try {
        FaultScenario.sleep(PAST_SESSION_TIMEOUT);
      } finally {
        leader.resume();
      }
      s.awaitHealthy(Duration.ofSeconds(60));
      s.awaitWritable(Duration.ofSeconds(60));
      s.faultEnds();

      printWindow("SIGSTOP", s.finish());
    }
  }

  @Test
  @Order(4)
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void brokerCutOffFromTheControllerButReachableByClientsLosesNoAcknowledgedRecord()
      throws Exception {
    assumeTrue(
        noNetworkFaults.isEmpty(),
        () -> "SKIPPED, network faults unavailable: " + noNetworkFaults.get());
    try (FaultScenario s = FaultScenario.start(cluster, "cut")) {
      FaultScenario.sleep(Duration.ofSeconds(2));
      Node controller = s.activeController();
      Node victim = leaderOtherThanTheController(s);

      // When a leader loses its link to the active controller (not to the other broker nor to
      // the clients) past the session timeout, then the link heals
      s.faultStarts(
          "cut "
              + s.nodeName(victim)
              + " from active controller "
              + controller.id()
              + " for "
              + PAST_SESSION_TIMEOUT.toSeconds()
              + " s");
      cluster.cut(victim, controller);
      try {
        FaultScenario.sleep(PAST_SESSION_TIMEOUT);
      } finally {
        cluster.heal(victim, controller);
      }
      s.awaitHealthy(Duration.ofSeconds(60));
      s.awaitWritable(Duration.ofSeconds(60));
      s.faultEnds();

      long window = s.finish().values().iterator().next();
      System.out.printf("Cut-from-controller unwritable window: %d ms (no bound)%n", window);
    }
  }

  @Test
  @Order(5)
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void rollingRestartLosesNoAcknowledgedRecordAndKeepsPartitionsWritable() throws Exception {
    try (FaultScenario s = FaultScenario.start(cluster, "rolling")) {
      FaultScenario.sleep(Duration.ofSeconds(2));

      // When each node in turn is stopped (SIGTERM) and started again, the next one only once
      // it is back and every ISR is full; every partition is writable again each time
      for (Node node : cluster.nodes()) {
        s.faultStarts("SIGTERM and restart of " + s.nodeName(node));
        node.stop();
        node.restart();
        s.awaitHealthy(Duration.ofSeconds(90));
        s.awaitWritable(Duration.ofSeconds(60));
        s.faultEnds();
        FaultScenario.sleep(Duration.ofSeconds(1));
      }

      Map<String, Long> windows = s.finish();
      assertThat(windows).hasSize(3);
      // The windows (a controlled shutdown's is short, the active controller's adds an election)
      // are measurements; FailureWindowsTest bounds a rolling restart's in simulated time.
      windows.forEach(
          (fault, window) ->
              System.out.printf("Rolling restart: %d ms unwritable (%s)%n", window, fault));
    }
  }

  /**
   * The leader of partition 0 if it is not the active controller, else the leader of the first
   * partition whose leader is not: a broker failure without a controller failover.
   */
  private static Node leaderOtherThanTheController(FaultScenario s) throws Exception {
    Node controller = s.activeController();
    for (int p = 0; p < FaultScenario.PARTITIONS; p++) {
      Node leader = s.leaderOf(p);
      if (leader != controller) {
        return leader;
      }
    }
    throw new AssertionError("the active controller " + controller.id() + " leads everything");
  }
}
