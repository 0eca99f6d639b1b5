package io.brook.server;

import io.brook.controller.quorum.ClusterQuorum;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.server.admin.HealthCheck;
import io.brook.server.cluster.BrokerClusterServices;
import io.brook.storage.manager.LogManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the admin listener's {@code /health} and {@code /ready} check, from the parts of a node as
 * start-up makes them (the listener starts first, so readiness can be watched while the node
 * registers). Set on the starting thread, read on the admin worker: hence volatile.
 */
final class AdminChecks {
  private final int nodeId;
  private final boolean broker;
  private final boolean controller;
  private volatile LogManager logs;
  private volatile ClusterQuorum quorum;
  private volatile BrokerClusterServices cluster;
  private volatile boolean serving;

  AdminChecks(int nodeId, boolean broker, boolean controller) {
    this.nodeId = nodeId;
    this.broker = broker;
    this.controller = controller;
  }

  void quorum(ClusterQuorum quorum, BrokerClusterServices cluster) {
    this.quorum = quorum;
    this.cluster = cluster;
  }

  void logs(LogManager logs) {
    this.logs = logs;
  }

  /** The node finished starting: a broker's listeners accept connections. */
  void serving() {
    this.serving = true;
  }

  /** Liveness: the process answers, and no log directory went offline. */
  List<HealthCheck> health() {
    List<HealthCheck> checks = new ArrayList<>();
    checks.add(HealthCheck.pass("process"));
    LogManager current = logs;
    List<Path> offline = new ArrayList<>();
    if (current != null) {
      for (Path dir : current.logDirs()) {
        if (current.isLogDirOffline(dir)) {
          offline.add(dir);
        }
      }
    }
    checks.add(
        HealthCheck.check(
            "log-dirs",
            offline.isEmpty(),
            "log directories offline after a disk error: " + offline));
    return checks;
  }

  /**
   * Readiness: a broker is registered, unfenced in its own metadata (the controller unfences it
   * only once its metadata caught up to its registration) and accepting connections; a controller
   * sees a quorum leader.
   */
  List<HealthCheck> ready() {
    List<HealthCheck> checks = new ArrayList<>();
    ClusterQuorum q = quorum;
    if (controller) {
      boolean leader = q != null && q.activeControllerId().isPresent();
      checks.add(HealthCheck.check("quorum-leader", leader, "the controller quorum has no leader"));
    }
    if (broker) {
      BrokerClusterServices c = cluster;
      boolean registered = c != null && c.brokerEpoch() >= 0;
      checks.add(
          HealthCheck.check("registered", registered, "not registered with the controller (yet)"));
      Optional<BrokerRegistration> self = q == null ? Optional.empty() : q.image().broker(nodeId);
      boolean unfenced = self.map(b -> !b.fenced()).orElse(false);
      checks.add(
          HealthCheck.check(
              "unfenced",
              unfenced,
              self.isEmpty()
                  ? "this broker's registration is not in its metadata yet"
                  : "fenced: its metadata has not caught up, or its heartbeats are not answered"));
      checks.add(HealthCheck.check("listeners", serving, "the Kafka listeners do not accept yet"));
    }
    return checks;
  }
}
