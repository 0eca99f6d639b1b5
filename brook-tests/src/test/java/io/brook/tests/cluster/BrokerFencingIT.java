package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static io.brook.tests.cluster.ClusterClients.awaitSameEverywhere;
import static io.brook.tests.cluster.ControllerFailoverIT.brokers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.cluster.ClusterHarness.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three combined nodes as separate JVMs with Kafka's default session timeout (9 s): a broker that
 * goes silent is fenced and its leaderships move in one batch; when it is back it is unfenced. Each
 * test leaves all three nodes running and unfenced. Brook's liveness probe is off, so a killed
 * broker too is fenced by its session timeout alone ({@link FastFencingIT} covers the probe).
 */
class BrokerFencingIT {
  @TempDir static Path dir;
  private static ClusterHarness cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = ClusterHarness.start(dir, 3, Map.of("brook.broker.liveness.probe.enable", "false"));
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin.createTopics(List.of(new NewTopic("orders", 12, (short) 3))).all().get();
    }
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void killedBrokerLosesItsLeadershipsAndRejoinsAfterRestart() throws Exception {
    // Given a broker (not the active controller) that leads some partitions
    ServedMetadata before =
        awaitSameEverywhere(
            brokers(cluster.nodes()), Duration.ofSeconds(10), allThreeListedAndOrdersLed());
    Node victim = leaderOtherThanController(before);
    List<Node> survivors = others(victim);

    // When it is killed
    victim.kill();
    long killed = System.nanoTime();

    // Then every survivor serves metadata without it (after the 9 s session timeout)
    ServedMetadata after = awaitWithout(victim, survivors, Duration.ofSeconds(30));
    long fencedMs = (System.nanoTime() - killed) / 1_000_000;
    System.out.println(
        "Broker " + victim.id() + " fenced, leaders moved " + fencedMs + " ms after SIGKILL");
    // How soon (the session timeout plus one batch) is a measurement here; brook-simulation's
    // FailureWindowsTest checks the bound in simulated time.
    assertThat(after.leaders().values()).allMatch(leader -> leader >= 0);

    // When it starts again, it is unfenced and every broker lists it
    victim.restart();
    awaitSameEverywhere(brokers(cluster.nodes()), Duration.ofSeconds(15), allThreeListed());
  }

  @Test
  void pausedBrokerIsFencedAndUnfencedOnceItResumes() throws Exception {
    // Given a broker (not the active controller) that leads some partitions
    ServedMetadata before =
        awaitSameEverywhere(
            brokers(cluster.nodes()), Duration.ofSeconds(15), allThreeListedAndOrdersLed());
    Node victim = leaderOtherThanController(before);

    // When it is paused past the session timeout
    victim.pause();
    try {
      // Then it is fenced: no broker lists it or names it leader
      awaitWithout(victim, others(victim), Duration.ofSeconds(15));
    } finally {
      victim.resume();
    }

    // When it resumes, it heartbeats again and is unfenced without a restart
    awaitSameEverywhere(brokers(cluster.nodes()), Duration.ofSeconds(15), allThreeListed());
  }

  private static ServedMetadata awaitWithout(Node victim, List<Node> survivors, Duration within) {
    await("broker " + victim.id() + " fenced in every survivor's metadata")
        .atMost(within)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                survivors.stream()
                    .map(n -> ServedMetadata.from(n.bootstrap()))
                    .allMatch(
                        m ->
                            !m.brokers().containsKey(victim.id())
                                && !m.leaders().containsValue(victim.id())));
    return awaitSameEverywhere(
        brokers(survivors),
        Duration.ofSeconds(5),
        m -> assertThat(m.brokers()).doesNotContainKey(victim.id()));
  }

  /** Every broker listed and every partition of the topic led (it is created in the setup). */
  private static Consumer<ServedMetadata> allThreeListedAndOrdersLed() {
    return m -> {
      assertThat(m.brokers()).containsOnlyKeys(1, 2, 3);
      assertThat(m.leaders())
          .hasSize(12)
          .allSatisfy((tp, leader) -> assertThat(leader).isPositive());
    };
  }

  private static Consumer<ServedMetadata> allThreeListed() {
    return m -> assertThat(m.brokers()).containsOnlyKeys(1, 2, 3);
  }

  private static Node leaderOtherThanController(ServedMetadata metadata) {
    return cluster.nodes().stream()
        .filter(n -> n.id() != metadata.controllerId())
        .filter(n -> metadata.leaders().containsValue(n.id()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no broker but the controller leads: " + metadata));
  }

  private static List<Node> others(Node victim) {
    return cluster.nodes().stream().filter(n -> n != victim).toList();
  }
}
