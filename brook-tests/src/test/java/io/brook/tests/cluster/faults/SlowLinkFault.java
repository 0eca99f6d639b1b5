package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One node's link made slow and lossy for 1-20 s (a failing NIC, a congested switch port): its
 * traffic both ways, to the other nodes and to the clients, limited to 64 kbit/s-8 Mbit/s, with
 * what exceeds the rate queued for at most 5-500 ms and dropped after. The node stays reachable, so
 * nothing fences it at once; its followers fall behind, its leaderships answer late, and TCP
 * retransmits what the queue dropped. Unlike a cut, this is the gray failure a health check misses.
 */
final class SlowLinkFault extends NetworkFault {
  /** Rates in bit/s: from below the workloads' own rate to a few times above it. */
  static final List<Long> RATES = List.of(64_000L, 256_000L, 1_000_000L, 8_000_000L);

  /** How long the throttle queues a packet before dropping it: lossy to merely slow. */
  static final List<Integer> QUEUES_MS = List.of(5, 50, 500);

  @Override
  public String name() {
    return "slow-link";
  }

  @Override
  public Optional<String> unavailable(ClusterHarness cluster) {
    Optional<String> noNetwork = super.unavailable(cluster);
    return noNetwork.isPresent() ? noNetwork : ClusterHarness.slowLinksUnavailableReason();
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target target = c.pick();
    Node node = c.node(target);
    long rate = RATES.get(c.random.nextInt(RATES.size()));
    int queueMillis = QUEUES_MS.get(c.random.nextInt(QUEUES_MS.size()));
    Duration hold = c.between(1_000, 20_000);
    long start = System.nanoTime();
    c.cluster.slowLink(node, rate, queueMillis);
    long dropped = -1;
    try {
      FaultContext.hold(hold);
      dropped = c.cluster.droppedPackets(node);
    } finally {
      c.cluster.restoreLink(node);
    }
    System.out.printf(
        "slow-link: node %d at %d bit/s, queue %d ms, for %d ms: %d packets dropped%n",
        node.id(), rate, queueMillis, hold.toMillis(), dropped);
    return new Injection(List.of(target), hold.toMillis(), start, System.nanoTime());
  }
}
