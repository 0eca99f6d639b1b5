package io.brook.controller;

import io.brook.broker.admin.TopicAdmin;
import io.brook.broker.api.AllocateProducerIdsHandler;
import io.brook.broker.api.AlterPartitionHandler;
import io.brook.broker.api.AssignReplicasToDirsHandler;
import io.brook.broker.api.BrokerHeartbeatHandler;
import io.brook.broker.api.BrokerRegistrationHandler;
import io.brook.broker.api.DescribeQuorumHandler;
import io.brook.broker.api.ElectLeadersHandler;
import io.brook.broker.cluster.BrokerFencer;
import io.brook.broker.cluster.BrokerLivenessProbe;
import io.brook.broker.cluster.ControllerCallDispatcher;
import io.brook.broker.cluster.ForwardingHandler;
import io.brook.broker.cluster.LeaderRebalancer;
import io.brook.broker.cluster.OffloadedHandler;
import io.brook.controller.voters.AddRaftVoterHandler;
import io.brook.controller.voters.RemoveRaftVoterHandler;
import io.brook.controller.voters.UpdateRaftVoterHandler;
import io.brook.metadata.controller.BrokerSessions;
import io.brook.metadata.controller.ClusterController;
import io.brook.protocol.ApiHandler;
import io.brook.quorum.ClusterQuorum;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The controller side of a node: serves the controller APIs over the controller channel when this
 * node is the active controller (registration, heartbeats, AlterPartition, AssignReplicasToDirs,
 * AllocateProducerIds and the admin APIs the controller decides), keeps the broker sessions, fences
 * silent brokers, probes their connections and balances leaderships.
 */
public final class ControllerServices implements AutoCloseable {
  /** Calls waiting for a thread; beyond it the executor refuses (bounded). */
  private static final int QUEUE = 512;

  private final ControllerSettings settings;
  private final ClusterQuorum quorum;
  private final ClusterController controller;
  private final ScheduledExecutorService scheduler;

  /**
   * The calls arriving over the channel. Separate from the broker side's admin executor so a
   * broker-side thread waiting for a call never holds the thread the call needs (a node can be both
   * sides).
   */
  private final ThreadPoolExecutor callExecutor;

  private BrokerLivenessProbe livenessProbe;

  public ControllerServices(
      ControllerSettings settings,
      ClusterQuorum quorum,
      ClusterController controller,
      ScheduledExecutorService scheduler) {
    this.settings = settings;
    this.quorum = quorum;
    this.controller = controller;
    this.scheduler = scheduler;
    this.callExecutor = OffloadedHandler.boundedExecutor("brook-controller-calls", QUEUE);
  }

  /**
   * The admin APIs that only matter with several brokers (ElectLeaders, DescribeQuorum,
   * AddRaftVoter, RemoveRaftVoter): decided by the controller, accepted by every broker, which
   * forwards them.
   */
  public List<ApiHandler> clusterAdminHandlers() {
    return List.of(
        new ElectLeadersHandler(quorum, controller),
        new DescribeQuorumHandler(
            quorum::quorumState, quorum::image, settings.controllerListener()),
        new AddRaftVoterHandler(quorum, quorum::image, settings.controllerListener()),
        new RemoveRaftVoterHandler(quorum, quorum::image));
  }

  /**
   * Starts the controller side: serves the controller APIs when this node is active and fences
   * silent brokers.
   *
   * @param brokerHandlers this node's handlers, whose admin handlers the controller runs locally
   */
  public void start(List<ApiHandler> brokerHandlers, TopicAdmin admin, String clusterId) {
    BrokerSessions sessions =
        new BrokerSessions(settings.sessionTimeoutMs(), () -> System.nanoTime() / 1_000_000);
    List<ApiHandler> handlers = new ArrayList<>();
    handlers.add(new BrokerRegistrationHandler(quorum, controller, sessions, clusterId));
    handlers.add(new BrokerHeartbeatHandler(quorum, controller, sessions));
    handlers.add(new AlterPartitionHandler(quorum, controller));
    handlers.add(new AssignReplicasToDirsHandler(quorum, controller));
    handlers.add(new AllocateProducerIdsHandler(admin));
    // Voters send it themselves, to the controller only (never served on a broker listener).
    handlers.add(new UpdateRaftVoterHandler(quorum, quorum::image, settings.controllerListener()));
    List<ApiHandler> adminHandlers = new ArrayList<>(brokerHandlers);
    adminHandlers.addAll(clusterAdminHandlers());
    for (ApiHandler handler : adminHandlers) {
      if (ForwardingHandler.CONTROLLER_DECIDED.contains(handler.apiKey())) {
        handlers.add(handler);
      }
    }
    quorum.serve(new ControllerCallDispatcher(handlers, callExecutor));
    // A tenth of the session timeout: a silent broker is fenced at most 10% late.
    long checkMs = Math.max(50, settings.sessionTimeoutMs() / 10);
    scheduler.scheduleWithFixedDelay(
        new BrokerFencer(quorum, controller, sessions), checkMs, checkMs, TimeUnit.MILLISECONDS);
    if (settings.livenessProbe()) {
      // A crashed broker's closed connection fences it after one heartbeat interval.
      livenessProbe =
          BrokerLivenessProbe.start(
              quorum, controller, settings.nodeId(), settings.heartbeatIntervalMs());
    }
    if (settings.autoLeaderRebalance()) {
      long intervalMs = settings.leaderImbalanceCheckIntervalMs();
      scheduler.scheduleWithFixedDelay(
          new LeaderRebalancer(quorum, controller), intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void close() {
    if (livenessProbe != null) {
      livenessProbe.close();
    }
    callExecutor.shutdownNow();
  }
}
