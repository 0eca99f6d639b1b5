package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness.Node;
import java.time.Duration;
import java.util.List;

/**
 * SIGKILL of two of the three nodes at once: the quorum and {@code min.insync.replicas=2} are lost,
 * so nothing can be acknowledged until they return; held 0.5-10 s, then both restarted together.
 * Nothing acknowledged before may be lost, nothing unacknowledged may be reported lost.
 */
final class KillTwoFault implements CampaignFault {
  @Override
  public String name() {
    return "kill-two";
  }

  @Override
  public boolean crash() {
    return true;
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target first = c.pick();
    Target second = c.pickOther(first);
    List<Node> nodes = List.of(c.node(first), c.node(second));
    Duration hold = c.between(500, 10_000);
    long start = System.nanoTime();
    for (Node node : nodes) {
      node.kill();
    }
    FaultContext.hold(hold);
    c.cluster.restartTogether(nodes);
    return new Injection(List.of(first, second), hold.toMillis(), start, System.nanoTime());
  }
}
