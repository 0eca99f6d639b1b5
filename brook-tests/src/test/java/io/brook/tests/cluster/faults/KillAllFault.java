package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness.Node;
import io.brook.tests.cluster.faults.CampaignFault.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The whole cluster SIGKILLed at once, held 0.5-5 s, then every node restarted together. */
final class KillAllFault implements CampaignFault {
  @Override
  public String name() {
    return "kill-all";
  }

  @Override
  public boolean crash() {
    return true;
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    List<Node> nodes = c.cluster.nodes();
    List<Target> targets = new ArrayList<>();
    for (Node node : nodes) {
      targets.add(new Target(node.id(), "all"));
    }
    Duration hold = c.between(500, 5_000);
    long start = System.nanoTime();
    for (Node node : nodes) {
      node.kill();
    }
    FaultContext.hold(hold);
    c.cluster.restartTogether(nodes);
    return new Injection(targets, hold.toMillis(), start, System.nanoTime());
  }
}
