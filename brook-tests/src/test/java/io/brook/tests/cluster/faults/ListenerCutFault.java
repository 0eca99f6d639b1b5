package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One listener between two nodes cut both ways for 0.5-15 s, the rest of their link untouched
 * (iptables in their namespaces dropping that listener's TCP segments). Half the time it is the
 * brokers' listener: the two no longer replicate from each other or send each other inter-broker
 * requests, while both still reach the active controller and the clients, so a follower that cannot
 * fetch must be taken out of the ISR by its leader, not by the controller. Half the time it is the
 * controller listener: Raft and the broker heartbeats between them are cut while replication and
 * clients carry on, so a broker that cannot reach the active controller is fenced although it still
 * serves. One side is the active controller half the time.
 */
final class ListenerCutFault extends NetworkFault {
  @Override
  public String name() {
    return "listener-cut";
  }

  @Override
  public Optional<String> unavailable(ClusterHarness cluster) {
    return super.unavailable(cluster).or(ClusterHarness::listenerCutsUnavailableReason);
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target first = c.pick();
    Target second = c.pickPeer(first);
    boolean controllerListener = c.random.nextBoolean();
    Duration hold = c.between(500, 15_000);
    long start = System.nanoTime();
    c.cluster.cutListener(c.node(first), c.node(second), controllerListener);
    try {
      FaultContext.hold(hold);
    } finally {
      c.cluster.healListener(c.node(first), c.node(second), controllerListener);
    }
    String listener = controllerListener ? "controller listener" : "broker listener";
    return new Injection(
        List.of(
            new Target(first.node(), first.role() + ", " + listener),
            new Target(second.node(), second.role() + ", " + listener)),
        hold.toMillis(),
        start,
        System.nanoTime());
  }
}
