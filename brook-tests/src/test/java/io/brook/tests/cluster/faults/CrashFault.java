package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness.Node;
import java.time.Duration;
import java.util.List;

/**
 * One node stopped, held down, then restarted on the same data: SIGKILL ({@code kill}, down 0.5-15
 * s) or SIGTERM in the middle of the workloads ({@code term}: a controlled shutdown while produce,
 * fetch, commit and transaction requests are in flight, down 0.5-10 s).
 */
final class CrashFault implements CampaignFault {
  private final boolean sigkill;

  CrashFault(boolean sigkill) {
    this.sigkill = sigkill;
  }

  @Override
  public String name() {
    return sigkill ? "kill" : "term";
  }

  @Override
  public boolean crash() {
    return true;
  }

  @Override
  public Injection inject(FaultContext c) throws Exception {
    Target target = c.pick();
    Node node = c.node(target);
    Duration hold = sigkill ? c.between(500, 15_000) : c.between(500, 10_000);
    long start = System.nanoTime();
    if (sigkill) {
      node.kill();
    } else {
      node.stop();
    }
    FaultContext.hold(hold);
    node.restart();
    return new Injection(List.of(target), hold.toMillis(), start, System.nanoTime());
  }
}
