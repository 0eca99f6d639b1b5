package io.brook.controller;

import static java.util.stream.Collectors.toSet;

import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.cluster.ForwardingHandler;
import io.brook.broker.cluster.OffloadedHandler;
import io.brook.broker.quota.ControllerMutationQuotas;
import io.brook.controller.api.AllocateProducerIdsHandler;
import io.brook.controller.api.AlterClientQuotasHandler;
import io.brook.controller.api.AlterConfigsHandler;
import io.brook.controller.api.AlterPartitionHandler;
import io.brook.controller.api.AlterPartitionReassignmentsHandler;
import io.brook.controller.api.AlterUserScramCredentialsHandler;
import io.brook.controller.api.AssignReplicasToDirsHandler;
import io.brook.controller.api.BrokerHeartbeatHandler;
import io.brook.controller.api.BrokerRegistrationHandler;
import io.brook.controller.api.CreateAclsHandler;
import io.brook.controller.api.CreatePartitionsHandler;
import io.brook.controller.api.CreateTopicsHandler;
import io.brook.controller.api.DeleteAclsHandler;
import io.brook.controller.api.DeleteTopicsHandler;
import io.brook.controller.api.DescribeQuorumHandler;
import io.brook.controller.api.ElectLeadersHandler;
import io.brook.controller.api.IncrementalAlterConfigsHandler;
import io.brook.controller.api.ListPartitionReassignmentsHandler;
import io.brook.controller.api.TopicAdmin;
import io.brook.controller.api.TopicConfigView;
import io.brook.controller.api.UpdateFeaturesHandler;
import io.brook.controller.cluster.BrokerFencer;
import io.brook.controller.cluster.BrokerLivenessProbe;
import io.brook.controller.cluster.ControllerCallDispatcher;
import io.brook.controller.cluster.LeaderRebalancer;
import io.brook.controller.quorum.ClusterQuorum;
import io.brook.controller.state.BrokerFences;
import io.brook.controller.state.BrokerSessions;
import io.brook.controller.state.ClusterController;
import io.brook.controller.state.ConfigValidator;
import io.brook.controller.state.ControllerConfig;
import io.brook.controller.voters.AddRaftVoterHandler;
import io.brook.controller.voters.RemoveRaftVoterHandler;
import io.brook.controller.voters.UpdateRaftVoterHandler;
import io.brook.protocol.ApiHandler;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;

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
  private final TopicAdmin admin;

  /** The handlers of the admin APIs the controller decides, which every broker forwards here. */
  private final List<ApiHandler> adminHandlers;

  /**
   * The calls arriving over the channel. Separate from the broker side's admin executor so a
   * broker-side thread waiting for a call never holds the thread the call needs (a node can be both
   * sides).
   */
  private final ThreadPoolExecutor callExecutor;

  private volatile BrokerLivenessProbe livenessProbe;

  public ControllerServices(
      ControllerSettings settings,
      ClusterQuorum quorum,
      ControllerConfig controllerConfig,
      ConfigValidator topicConfigValidator,
      ConfigValidator groupConfigValidator,
      TopicConfigView topicConfigs,
      RequestAuthorizer authorizer,
      ControllerMutationQuotas mutationQuotas,
      ScheduledExecutorService scheduler) {
    this.settings = settings;
    this.quorum = quorum;
    BrokerFences fences = new BrokerFences();
    fences.onImage(quorum.image());
    quorum.addListener(fences::onImage);
    this.controller =
        new ClusterController(controllerConfig, quorum::image, new SecureRandom(), fences);
    this.scheduler = scheduler;
    this.admin = new TopicAdmin(quorum, controller, topicConfigValidator, groupConfigValidator);
    this.adminHandlers =
        List.of(
            new CreateTopicsHandler(admin, topicConfigs, authorizer, mutationQuotas),
            new DeleteTopicsHandler(admin, authorizer, mutationQuotas),
            new CreatePartitionsHandler(admin, authorizer, mutationQuotas),
            new AlterConfigsHandler(admin, authorizer),
            new IncrementalAlterConfigsHandler(admin, topicConfigs, authorizer),
            new CreateAclsHandler(admin, authorizer),
            new DeleteAclsHandler(admin, authorizer),
            new AlterPartitionReassignmentsHandler(admin),
            new ListPartitionReassignmentsHandler(admin),
            new ElectLeadersHandler(quorum, controller),
            new UpdateFeaturesHandler(quorum, controller),
            new DescribeQuorumHandler(
                quorum::quorumState, quorum::image, settings.controllerListener()),
            new AddRaftVoterHandler(quorum, quorum::image, settings.controllerListener()),
            new RemoveRaftVoterHandler(quorum, quorum::image),
            new AlterUserScramCredentialsHandler(quorum),
            new AlterClientQuotasHandler(quorum));
    Set<ApiKeys> served = adminHandlers.stream().map(ApiHandler::apiKey).collect(toSet());
    if (!served.equals(ForwardingHandler.CONTROLLER_DECIDED)) {
      // Every API the brokers forward must have its handler here, and only those.
      throw new IllegalStateException("controller admin APIs " + served);
    }
    this.callExecutor = OffloadedHandler.boundedExecutor("brook-controller-calls", QUEUE);
  }

  /**
   * Whether this controller's liveness probe holds {@code brokerId}'s connection as lost now (see
   * {@link BrokerLivenessProbe#connectionLost}); false while the probe is off or not started.
   */
  public boolean brokerConnectionLost(int brokerId) {
    BrokerLivenessProbe probe = livenessProbe;
    return probe != null && probe.connectionLost(brokerId);
  }

  /** The controller's state machine, for the node's start-up (the cluster id). */
  public ClusterController controller() {
    return controller;
  }

  /**
   * The admin APIs the controller decides ({@link ForwardingHandler#CONTROLLER_DECIDED}): served
   * here, over the controller channel, and by the broker side of a node that is the active
   * controller, which forwards them elsewhere.
   */
  public List<ApiHandler> adminHandlers() {
    return adminHandlers;
  }

  /**
   * Starts the controller side: serves the controller APIs when this node is active and fences
   * silent brokers.
   */
  public void start(String clusterId) {
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
    handlers.addAll(adminHandlers);
    quorum.serve(new ControllerCallDispatcher(handlers, callExecutor));
    // A tenth of the session timeout: a silent broker is fenced at most 10% late.
    long checkMs = Math.max(50, settings.sessionTimeoutMs() / 10);
    scheduler.scheduleWithFixedDelay(
        new BrokerFencer(quorum, controller, sessions), checkMs, checkMs, TimeUnit.MILLISECONDS);
    if (settings.livenessProbe()) {
      // A crashed broker's closed connection fences it after the grace.
      livenessProbe =
          BrokerLivenessProbe.start(
              quorum, controller, settings.nodeId(), settings.livenessProbeGraceMs());
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
