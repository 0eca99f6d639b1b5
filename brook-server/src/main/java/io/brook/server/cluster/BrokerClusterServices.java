package io.brook.server.cluster;

import io.brook.broker.cluster.AlterPartitionManager;
import io.brook.broker.cluster.BrokerLifecycleManager;
import io.brook.broker.cluster.CleanShutdownEpoch;
import io.brook.broker.cluster.ControllerClient;
import io.brook.broker.cluster.ForwardingAutoTopicCreator;
import io.brook.broker.cluster.ForwardingHandler;
import io.brook.broker.cluster.LeadershipLease;
import io.brook.broker.cluster.OffloadedHandler;
import io.brook.broker.replica.IsrChangeSender;
import io.brook.broker.time.ExecutorScheduler;
import io.brook.controller.quorum.ClusterQuorum;
import io.brook.metadata.controller.ProducerIdBlock;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.protocol.ApiHandler;
import io.brook.server.config.BrokerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntPredicate;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker side of a node's cluster role: admin requests forwarded to the active controller,
 * registration and heartbeats, ISR changes and controlled shutdown. The controller side is {@code
 * ControllerServices} (brook-controller).
 */
public final class BrokerClusterServices implements AutoCloseable {
  /** Requests waiting for a thread; beyond it the executor refuses (bounded). */
  private static final int QUEUE = 512;

  private final ClusterSettings settings;

  /** Renewed by this broker's heartbeats; what its coordinators check before answering. */
  private final LeadershipLease lease;

  private final int nodeId;
  private final ClusterQuorum quorum;
  private final ControllerClient controllerClient;

  /**
   * The controller's handlers of the admin APIs it decides (see {@code
   * ControllerServices#adminHandlers}), run here when this node is the active controller.
   */
  private final List<ApiHandler> controllerHandlers;

  /** The broker side's admin work (it may wait for the controller channel). */
  private final ThreadPoolExecutor adminExecutor;

  private final ScheduledExecutorService scheduler;
  private volatile BrokerLifecycleManager lifecycle;

  /** This process's registration: a new one at every start, as KRaft's incarnation id. */
  private final Uuid incarnationId = Uuid.randomUuid();

  /** The brokers this node's liveness probe holds as lost now (none on a broker-only node). */
  private final IntPredicate brokerConnectionLost;

  public BrokerClusterServices(
      BrokerConfig config,
      ClusterQuorum quorum,
      List<ApiHandler> controllerHandlers,
      IntPredicate brokerConnectionLost,
      ScheduledExecutorService scheduler) {
    this.settings = ClusterSettings.of(config);
    this.lease = new LeadershipLease(settings.sessionTimeoutMs(), System::nanoTime);
    this.brokerConnectionLost = brokerConnectionLost;
    this.nodeId = config.nodeId();
    this.quorum = quorum;
    this.controllerHandlers = List.copyOf(controllerHandlers);
    this.scheduler = scheduler;
    // Long enough for a controller that is slow but alive (its answer renews the lease), short
    // enough that the heartbeat sent after an abandoned one still lands within the session.
    long callTimeoutMs = Math.max(settings.requestTimeoutMs(), settings.sessionTimeoutMs() / 2);
    this.controllerClient =
        new ControllerClient(quorum, new ExecutorScheduler(scheduler), callTimeoutMs);
    this.adminExecutor = OffloadedHandler.boundedExecutor("brook-admin", QUEUE);
  }

  /**
   * The controller id Metadata and DescribeCluster report: the active controller when it is also an
   * unfenced broker (combined nodes), else the lowest unfenced broker id. Clients send admin
   * requests to that node, so it must be a broker they can reach (Kafka names a broker too); the
   * lowest id keeps every broker's answer the same. Any broker forwards to the real controller.
   *
   * <p>A broker whose connection this node's liveness probe saw drop is not named: when the active
   * controller's node dies, the others keep naming it until their election ends and keep it
   * unfenced until the probe's grace passes, and an Admin client sent there backs off further after
   * each refused connection (about 1 s of a failover went there). Named a live broker instead, it
   * sends its request at once and that broker forwards it once the new controller is elected.
   */
  public int activeControllerId() {
    return controllerToName(
        quorum.image(), quorum.activeControllerId().orElse(-1), nodeId, brokerConnectionLost);
  }

  /**
   * The choice {@link #activeControllerId} makes, given the image, the active controller as this
   * node knows it (-1 if none), this node's id and the brokers its liveness probe holds as lost.
   */
  static int controllerToName(
      MetadataImage image, int activeController, int self, IntPredicate connectionLost) {
    // Unfenced, and not a broker this node saw die (it always counts itself as reachable).
    Predicate<BrokerRegistration> reachable =
        broker ->
            broker != null
                && !broker.fenced()
                && (broker.id() == self || !connectionLost.test(broker.id()));
    if (reachable.test(image.broker(activeController).orElse(null))) {
      return activeController;
    }
    return image.brokers().values().stream()
        .filter(reachable)
        .mapToInt(BrokerRegistration::id)
        .min()
        .orElse(self);
  }

  public ControllerClient controllerClient() {
    return controllerClient;
  }

  public ForwardingAutoTopicCreator autoTopicCreator(boolean enabled) {
    return new ForwardingAutoTopicCreator(controllerClient, enabled);
  }

  /**
   * The handlers a broker listener serves: the broker's own, with InitProducerId off the event
   * loop, and the admin APIs the controller decides, forwarded to the active controller (or run by
   * the controller's handler, off the event loop, when this node is active).
   */
  public List<ApiHandler> brokerHandlers(List<ApiHandler> handlers) {
    List<ApiHandler> wrapped = new ArrayList<>();
    for (ApiHandler handler : controllerHandlers) {
      wrapped.add(new ForwardingHandler(handler, quorum, controllerClient, adminExecutor));
    }
    for (ApiHandler handler : handlers) {
      if (ForwardingHandler.CONTROLLER_DECIDED.contains(handler.apiKey())) {
        throw new IllegalArgumentException("decided by the controller: " + handler.apiKey());
      } else if (handler.apiKey() == ApiKeys.INIT_PRODUCER_ID) {
        wrapped.add(new OffloadedHandler(handler, adminExecutor));
      } else {
        wrapped.add(handler);
      }
    }
    return wrapped;
  }

  /**
   * How long this broker may trust its leaderships: renewed by each heartbeat the controller
   * answers "unfenced", held from the first such answer on.
   */
  public LeadershipLease lease() {
    return lease;
  }

  /** The incarnation id this process registers with. */
  public Uuid incarnationId() {
    return incarnationId;
  }

  /**
   * Registers this broker and waits until the controller unfences it, at most {@code
   * initial.broker.registration.timeout.ms}.
   *
   * @param appliedMetadataOffset the offset of the image the broker's replica manager has applied:
   *     the broker is unfenced once that reaches its registration
   * @param logDirs the ids of this broker's log directories
   * @param offlineLogDirs the ids of those that failed, now
   * @param onRegistered told each registration epoch as soon as the controller grants it
   */
  public void startBroker(
      BrokerConfig config,
      String clusterId,
      List<BrokerEndpoint> endpoints,
      LongSupplier appliedMetadataOffset,
      List<Uuid> logDirs,
      Supplier<List<Uuid>> offlineLogDirs,
      LongConsumer onRegistered) {
    lifecycle =
        new BrokerLifecycleManager(
            config.nodeId(),
            clusterId,
            endpoints,
            config.brokerRack(),
            controllerClient,
            appliedMetadataOffset,
            new ExecutorScheduler(scheduler),
            settings.heartbeatIntervalMs(),
            logDirs,
            offlineLogDirs,
            CleanShutdownEpoch.readAndDelete(config.logDirs()),
            lease,
            incarnationId);
    lifecycle.addRegistrationListener(onRegistered);
    lifecycle.start();
    try {
      lifecycle.unfenced().get(settings.registrationTimeoutMs(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while registering with the controller", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "not registered and unfenced by the controller within "
              + settings.registrationTimeoutMs()
              + " ms (initial.broker.registration.timeout.ms); is a majority of "
              + settings.voters().keySet()
              + " running?",
          e);
    }
  }

  /**
   * A producer-id block from the active controller, for this broker (AllocateProducerIds with its
   * current broker epoch). Blocks the caller: call it off the event loop.
   */
  public ProducerIdBlock allocateProducerIds(int brokerId) {
    AllocateProducerIdsRequestData request =
        new AllocateProducerIdsRequestData()
            .setBrokerId(brokerId)
            .setBrokerEpoch(lifecycle == null ? -1 : lifecycle.brokerEpoch());
    AllocateProducerIdsResponseData response =
        (AllocateProducerIdsResponseData)
            controllerClient.send(ApiKeys.ALLOCATE_PRODUCER_IDS, request).join();
    Errors error = Errors.forCode(response.errorCode());
    if (error != Errors.NONE) {
      throw error.exception("cannot allocate producer ids");
    }
    return new ProducerIdBlock(response.producerIdStart(), response.producerIdLen());
  }

  /** This broker's registration epoch, or -1 before it registered. */
  public long brokerEpoch() {
    BrokerLifecycleManager current = lifecycle;
    return current == null ? -1 : current.brokerEpoch();
  }

  /** Sends this broker's ISR changes (as a leader) to the active controller. */
  public IsrChangeSender isrChangeSender() {
    return new AlterPartitionManager(nodeId, this::brokerEpoch, controllerClient);
  }

  /**
   * Reports to the controller the replicas of a log directory that failed, so that their
   * leaderships move; see {@link BrokerLifecycleManager#reportOfflineReplicas}.
   */
  public void reportOfflineReplicas(Uuid dirId, Map<Uuid, List<Integer>> partitions) {
    BrokerLifecycleManager current = lifecycle;
    if (current != null) {
      current.reportOfflineReplicas(dirId, partitions);
    }
  }

  /** Controlled shutdown: moves this broker's leaderships away before the node stops. */
  public void shutdownBroker() {
    if (lifecycle != null) {
      lifecycle.shutdown(Duration.ofMillis(settings.requestTimeoutMs()));
    }
  }

  @Override
  public void close() {
    shutdownBroker();
    adminExecutor.shutdownNow();
  }
}
