package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness.Node;
import java.time.Duration;
import java.util.List;

/** Every link of one node cut (to the other nodes and to the clients) for 0.5-15 s. */
final class IsolateFault extends NetworkFault {
  @Override
  public String name() {
    return "isolate";
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target target = c.pick();
    Node node = c.node(target);
    Duration hold = c.between(500, 15_000);
    long start = System.nanoTime();
    c.cluster.isolate(node);
    try {
      FaultContext.hold(hold);
    } finally {
      c.cluster.rejoin(node);
    }
    return new Injection(List.of(target), hold.toMillis(), start, System.nanoTime());
  }
}
