package io.brook.tests.cluster.faults;

import io.brook.tests.cluster.ClusterHarness;
import java.util.List;
import java.util.Optional;

/**
 * One class of fault the {@link ReplicationFaultCampaign} injects: it picks its targets, breaks
 * them, holds the fault, heals it, and says when the fault started and ended. Waiting for the
 * cluster to recover is the campaign's part, not the fault's.
 */
interface CampaignFault {
  /** The name {@code --faults} selects it by and the cycle records carry. */
  String name();

  /**
   * Whether the fault is a crash: its unwritable window is measured from its start (the cluster
   * must recover while the node is down), not from its end.
   */
  default boolean crash() {
    return false;
  }

  /** Why the fault cannot run on this cluster or machine, or empty if it can. */
  default Optional<String> unavailable(ClusterHarness cluster) {
    return Optional.empty();
  }

  /** Injects the fault into a running cluster, holds it and heals it. */
  Injection inject(FaultContext context) throws Exception;

  /** A node the fault hit and the role it was picked for. */
  record Target(int node, String role) {}

  /**
   * What one injection did: its targets, how long it was held, and when it started and ended
   * ({@link System#nanoTime()}; the end is when it was healed, a crashed node restarted).
   */
  record Injection(List<Target> targets, long holdMillis, long startNanos, long endNanos) {}
}
