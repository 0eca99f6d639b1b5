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
 * ReplicationChecker}: every acknowledged record present exactly once, at its offset, in send
 * order; nothing a consumer saw ever replaced. Each test prints its faults' unwritable windows.
 *
 * <p>The nodes run in network namespaces where they can be made (root, iproute2), so that a link
 * can be cut; elsewhere on loopback, and the cut test is skipped with the reason printed.
 *
 * <p>{@link ReplicationFaultCampaign} runs many random fault cycles with the same checks (Maven
 * profile {@code fault-campaign}); this class, in the default suite, takes about 2-3 minutes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicationFaultsIT {
  /**
   * Bound on the unwritable window after SIGKILL of a leader: the controller's liveness probe
   * fences a crashed broker one heartbeat interval (2 s) after its connection drops, and the new
   * leader is writable as soon as its followers fetch from it. Measured 2.2-2.4 s.
   */
  static final Duration SIGKILL_WINDOW_LIMIT = Duration.ofMillis(3_500);

  /**
   * Paused past the 9 s session timeout: fenced after the session timeout (checked every 0.9 s),
   * then writable as for a crash. Measured 10.1 s.
   */
  static final Duration SIGSTOP_WINDOW_LIMIT = Duration.ofSeconds(12);

  /** Controlled shutdown moves leaderships before the process exits. */
  static final Duration CONTROLLED_RESTART_WINDOW_LIMIT = Duration.ofSeconds(2);

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

      // Then every check holds, and the partitions were unwritable for less than the bound
      assertSigkillWindow(s.finish());
    }
  }

  @Test
  @Order(2)
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void sigkillOfTheActiveControllerLeadingPartitionsLosesNoAcknowledgedRecord() throws Exception {
    try (FaultScenario s = FaultScenario.start(cluster, "sigkill-controller")) {
      FaultScenario.sleep(Duration.ofSeconds(2));
      killAndRestart(s, s.activeController());
      assertSigkillWindow(s.finish());
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

  private static void assertSigkillWindow(Map<String, Long> windows) {
    long window = windows.values().iterator().next();
    System.out.printf(
        "SIGKILL unwritable window: %d ms (limit %d ms)%n",
        window, SIGKILL_WINDOW_LIMIT.toMillis());
    assertThat(window).isLessThan(SIGKILL_WINDOW_LIMIT.toMillis());
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

      long window = s.finish().values().iterator().next();
      System.out.printf(
          "SIGSTOP unwritable window: %d ms (limit %d ms)%n",
          window, SIGSTOP_WINDOW_LIMIT.toMillis());
      assertThat(window).isLessThan(SIGSTOP_WINDOW_LIMIT.toMillis());
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
  void rollingRestartLosesNoAcknowledgedRecordAndBarelyPausesWrites() throws Exception {
    try (FaultScenario s = FaultScenario.start(cluster, "rolling")) {
      FaultScenario.sleep(Duration.ofSeconds(2));

      // When each node in turn is stopped (SIGTERM) and started again, the next one only once
      // it is back and every ISR is full
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
      windows.forEach(
          (fault, window) -> {
            if (fault.contains("active controller")) {
              // Restarting the active controller adds a Raft election and the new controller's
              // take-over to the controlled shutdown: 0.1 to 3 s on a 2-core machine. That window
              // is a measurement (printed here, and the fault campaign's figures), not a bound
              // this test can hold on a loaded machine; the records are checked all the same.
              System.out.printf(
                  "Rolling restart of the active controller: %d ms unwritable (%s)%n",
                  window, fault);
            } else {
              assertThat(window)
                  .as("unwritable window of %s", fault)
                  .isLessThan(CONTROLLED_RESTART_WINDOW_LIMIT.toMillis());
            }
          });
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
