package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import io.brook.tests.cluster.ClusterHarness.Node;
import io.brook.tests.cluster.LinkImpairment;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One node's link degraded for 1-20 s the way a bad cable, an overloaded switch or a flapping route
 * degrades it: its packets both ways delayed by up to a few hundred milliseconds with jitter (so
 * they overtake each other), some dropped, some of what it sends delivered twice. Real packets
 * through the kernel's TCP, which must retransmit, reassemble and discard duplicates; the brokers
 * see slow, bursty, out-of-order-on-the-wire connections that stay up, the gray failure that
 * neither a cut nor a pause produces.
 */
final class LossyLinkFault extends NetworkFault {
  static final List<Integer> DELAYS_MS = List.of(0, 5, 50, 200);
  static final List<Integer> JITTERS_MS = List.of(0, 20, 200);
  static final List<Integer> DROP_PERCENTS = List.of(0, 1, 5, 20);
  static final List<Integer> DUPLICATE_PERCENTS = List.of(0, 1, 10);

  @Override
  public String name() {
    return "lossy-link";
  }

  @Override
  public Optional<String> unavailable(ClusterHarness cluster) {
    Optional<String> noNetwork = super.unavailable(cluster);
    return noNetwork.isPresent() ? noNetwork : ClusterHarness.impairedLinksUnavailableReason();
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target target = c.pick();
    Node node = c.node(target);
    LinkImpairment impairment;
    do {
      impairment =
          new LinkImpairment(
              DELAYS_MS.get(c.random.nextInt(DELAYS_MS.size())),
              JITTERS_MS.get(c.random.nextInt(JITTERS_MS.size())),
              DROP_PERCENTS.get(c.random.nextInt(DROP_PERCENTS.size())),
              DUPLICATE_PERCENTS.get(c.random.nextInt(DUPLICATE_PERCENTS.size())));
    } while (impairment.isNone());
    Duration hold = c.between(1_000, 20_000);
    long start = System.nanoTime();
    c.cluster.impairLink(node, impairment, c.random.nextLong());
    LinkImpairment.Effect effect;
    try {
      FaultContext.hold(hold);
    } finally {
      effect = c.cluster.unimpairLink(node);
    }
    System.out.printf(
        "lossy-link: node %d, %s, for %d ms: %s%n", node.id(), impairment, hold.toMillis(), effect);
    return new Injection(List.of(target), hold.toMillis(), start, System.nanoTime());
  }
}
