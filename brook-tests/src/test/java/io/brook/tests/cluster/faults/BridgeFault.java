package io.brook.tests.cluster.faults;

import java.time.Duration;
import java.util.List;

/**
 * The link between two nodes cut both ways for 0.5-15 s while the third node and the clients still
 * reach both: a bridge, the third node seeing both halves. Half the time one side is the active
 * controller, so a broker loses its controller but not its clients or its followers.
 */
final class BridgeFault extends NetworkFault {
  @Override
  public String name() {
    return "bridge";
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target first = c.pick();
    Target second = c.pickPeer(first);
    Duration hold = c.between(500, 15_000);
    long start = System.nanoTime();
    c.cluster.cut(c.node(first), c.node(second));
    try {
      FaultContext.hold(hold);
    } finally {
      c.cluster.heal(c.node(first), c.node(second));
    }
    return new Injection(List.of(first, second), hold.toMillis(), start, System.nanoTime());
  }
}
