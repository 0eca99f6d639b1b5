package io.brook.tests.cluster.faults;

import static org.awaitility.Awaitility.await;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import io.brook.tests.cluster.faults.CampaignFault.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * What a {@link CampaignFault} needs to pick and hit its targets: the cluster, the cycle's {@link
 * FaultScenario} (partition leaders, the active controller) and the campaign's seeded random.
 */
final class FaultContext {
  /** The roles a fault's target is picked for. */
  static final List<String> ROLES = List.of("leader", "follower", "controller", "coordinator");

  /** The consumer group whose coordinator is the "coordinator" target. */
  static final String COORDINATED_GROUP = "campaign-group";

  final ClusterHarness cluster;
  final FaultScenario scenario;
  final Random random;

  FaultContext(ClusterHarness cluster, FaultScenario scenario, Random random) {
    this.cluster = cluster;
    this.scenario = scenario;
    this.random = random;
  }

  /** A random milliseconds duration in {@code [min, max)}. */
  Duration between(long minMillis, long maxMillis) {
    return Duration.ofMillis(minMillis + (long) (random.nextDouble() * (maxMillis - minMillis)));
  }

  /** A target for a random role. */
  Target pick() {
    return pick(ROLES.get(random.nextInt(ROLES.size())));
  }

  /**
   * The node in a role now: the leader of a random partition of the cycle's topic, a follower (a
   * replica that is not its leader), the active controller, or the coordinator of {@link
   * #COORDINATED_GROUP} (which hosts the campaign's group and transaction workloads too).
   */
  Target pick(String role) {
    int partition = random.nextInt(FaultScenario.PARTITIONS);
    Node node =
        switch (role) {
          case "leader" -> scenario.leaderOf(partition);
          case "follower" -> {
            Node leader = scenario.leaderOf(partition);
            List<Node> others = cluster.nodes().stream().filter(n -> n != leader).toList();
            yield others.get(random.nextInt(others.size()));
          }
          case "controller" -> scenario.activeController();
          case "coordinator" -> coordinator();
          default -> throw new IllegalArgumentException("unknown role " + role);
        };
    return new Target(node.id(), role);
  }

  /**
   * The other end of a link fault from {@code first}: half the time the active controller (when
   * {@code first} is not it), else another node in a random role.
   */
  Target pickPeer(Target first) {
    Target controller = pick("controller");
    return controller.node() != first.node() && random.nextBoolean()
        ? controller
        : pickOther(first);
  }

  /** A second target, on another node than {@code first}, in a random role. */
  Target pickOther(Target first) {
    for (int attempt = 0; attempt < 8; attempt++) {
      Target t = pick();
      if (t.node() != first.node()) {
        return t;
      }
    }
    List<Node> others = cluster.nodes().stream().filter(n -> n.id() != first.node()).toList();
    return new Target(others.get(random.nextInt(others.size())).id(), "any");
  }

  Node node(Target target) {
    return cluster.node(target.node());
  }

  private Node coordinator() {
    return await("the coordinator of " + COORDINATED_GROUP)
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                cluster.node(
                    scenario
                        .admin()
                        .describeConsumerGroups(List.of(COORDINATED_GROUP))
                        .describedGroups()
                        .get(COORDINATED_GROUP)
                        .get(10, TimeUnit.SECONDS)
                        .coordinator()
                        .id()),
            n -> n != null);
  }

  /** Breaks a node's disk; returns what was done, for the cycle's output. */
  @FunctionalInterface
  interface DiskBreak {
    String apply() throws Exception;
  }

  /** Undoes a {@link DiskBreak}. */
  @FunctionalInterface
  interface DiskRepair {
    void apply() throws Exception;
  }

  /**
   * The cycle of a disk fault that must stop its node: breaks the target's disk, requires the node
   * to exit within a minute, repairs the disk whatever happened, and restarts the node on what it
   * had written after 0.5-3 s. Every node writes within milliseconds (each replicates every
   * partition), so a node still running after a minute neither stopped nor noticed: the wait fails
   * the cycle.
   */
  CampaignFault.Injection stopOnDiskFault(Target target, DiskBreak breakDisk, DiskRepair repair)
      throws Exception {
    Node node = node(target);
    long start = System.nanoTime();
    String what;
    int status;
    try {
      what = breakDisk.apply();
      status = node.awaitExit(Duration.ofSeconds(60));
    } finally {
      repair.apply();
    }
    long down = System.nanoTime();
    TimeUnit.MILLISECONDS.sleep(between(500, 3_000).toMillis());
    node.restart();
    System.out.printf("node %d stopped on %s with status %d%n", target.node(), what, status);
    return new CampaignFault.Injection(
        List.of(target), (down - start) / 1_000_000, start, System.nanoTime());
  }

  /** Holds a fault: the workloads run on meanwhile. */
  static void hold(Duration duration) throws InterruptedException {
    TimeUnit.MILLISECONDS.sleep(duration.toMillis());
  }

  static List<Target> targets(Target... targets) {
    return new ArrayList<>(List.of(targets));
  }
}
