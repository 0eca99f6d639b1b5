package io.brook.tests.cluster.faults;

import java.time.Duration;
import java.util.List;

/**
 * One direction of a link cut for 0.5-15 s: the first target can no longer send to the second,
 * which still sends to it (a leader that hears its follower's fetches but cannot answer, a broker
 * whose heartbeats vanish while the controller's connection to it looks open).
 */
final class OneWayCutFault extends NetworkFault {
  @Override
  public String name() {
    return "one-way";
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target from = c.pick();
    Target to = c.pickOther(from);
    Duration hold = c.between(500, 15_000);
    long start = System.nanoTime();
    c.cluster.cutOneWay(c.node(from), c.node(to));
    try {
      FaultContext.hold(hold);
    } finally {
      c.cluster.healOneWay(c.node(from), c.node(to));
    }
    return new Injection(List.of(from, to), hold.toMillis(), start, System.nanoTime());
  }
}
