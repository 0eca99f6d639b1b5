package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness.Node;
import java.time.Duration;
import java.util.List;

/**
 * SIGSTOP of one node, then SIGCONT: short (0.3-5 s, well inside the 9 s {@code
 * broker.session.timeout.ms}: the node comes back as if it had been slow, e.g. a GC pause) or long
 * (10-20 s, past it: the node is fenced while it is frozen and finds out only when it resumes).
 */
final class PauseFault implements CampaignFault {
  private final boolean pastSessionTimeout;

  PauseFault(boolean pastSessionTimeout) {
    this.pastSessionTimeout = pastSessionTimeout;
  }

  @Override
  public String name() {
    return pastSessionTimeout ? "pause-long" : "pause-short";
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target target = c.pick();
    Node node = c.node(target);
    Duration hold = pastSessionTimeout ? c.between(10_000, 20_000) : c.between(300, 5_000);
    long start = System.nanoTime();
    node.pause();
    try {
      FaultContext.hold(hold);
    } finally {
      node.resume();
    }
    return new Injection(List.of(target), hold.toMillis(), start, System.nanoTime());
  }
}
