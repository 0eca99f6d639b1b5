package io.brook.server;

import io.brook.broker.BrokerIdentity;
import io.brook.broker.admin.AutoTopicCreator;
import io.brook.broker.admin.ConfigDescriber;
import io.brook.broker.admin.LocalMetadataBarrier;
import io.brook.broker.admin.ProducerIdManager;
import io.brook.broker.admin.TopicAdmin;
import io.brook.broker.api.AlterConfigsHandler;
import io.brook.broker.api.AlterPartitionReassignmentsHandler;
import io.brook.broker.api.AlterUserScramCredentialsHandler;
import io.brook.broker.api.CreatePartitionsHandler;
import io.brook.broker.api.CreateTopicsHandler;
import io.brook.broker.api.DeleteRecordsHandler;
import io.brook.broker.api.DeleteTopicsHandler;
import io.brook.broker.api.DescribeClusterHandler;
import io.brook.broker.api.DescribeConfigsHandler;
import io.brook.broker.api.DescribeLogDirsHandler;
import io.brook.broker.api.DescribeProducersHandler;
import io.brook.broker.api.DescribeTopicPartitionsHandler;
import io.brook.broker.api.DescribeUserScramCredentialsHandler;
import io.brook.broker.api.FetchHandler;
import io.brook.broker.api.IncrementalAlterConfigsHandler;
import io.brook.broker.api.ListOffsetsHandler;
import io.brook.broker.api.ListPartitionReassignmentsHandler;
import io.brook.broker.api.MetadataHandler;
import io.brook.broker.api.OffsetForLeaderEpochHandler;
import io.brook.broker.api.ProduceHandler;
import io.brook.broker.api.WriteTxnMarkersHandler;
import io.brook.broker.api.group.GroupApis;
import io.brook.broker.api.txn.TxnApis;
import io.brook.broker.cluster.CleanShutdownEpoch;
import io.brook.broker.cluster.ForwardingHandler;
import io.brook.broker.coordinator.ReplicaCoordinatorLogs;
import io.brook.broker.coordinator.ReplicaPartitionEnds;
import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.fetch.FetchSessionCache;
import io.brook.broker.fetch.FetchSessions;
import io.brook.broker.metrics.ReplicationMBeans;
import io.brook.broker.replica.DiskWork;
import io.brook.broker.replica.ReadReplicaSelector;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.replica.fetcher.ReplicaFetcherManager;
import io.brook.broker.time.ExecutorScheduler;
import io.brook.broker.time.Scheduler;
import io.brook.broker.txn.TxnMarkerSender;
import io.brook.controller.ControllerServices;
import io.brook.coordinator.api.GroupService;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.service.CoordinatorMarkerWriter;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.coordinator.txn.api.TransactionService;
import io.brook.metadata.controller.ClusterController;
import io.brook.metadata.controller.ControllerConfig;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.ConnectionListener;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.client.InterNodeEventLoops;
import io.brook.protocol.network.KafkaNetworkServer;
import io.brook.protocol.sasl.SaslApis;
import io.brook.quorum.ClusterQuorum;
import io.brook.server.cluster.BrokerClusterServices;
import io.brook.server.cluster.ClusterSettings;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Endpoint;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.TopicConfigs;
import io.brook.storage.manager.LogManager;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiFunction;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Brook node: storage, metadata, the data plane and the network, wired together and started in
 * dependency order, stopped in reverse.
 */
public final class BrookServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BrookServer.class);

  private final BrokerConfig config;
  private final String clusterId;
  private final ScheduledExecutorService scheduler;
  private final DiskWork disk;
  private final MetadataQuorum quorum;
  private final ControllerServices controllerSide;
  private final BrokerClusterServices cluster;
  private final LogManager logManager;
  private final DelayedOperations delayedOperations;
  private final ReplicaManager replicaManager;
  private final ReplicaFetcherManager fetchers;
  private final ReplicationMBeans mbeans;
  private final GroupCoordinator groupCoordinator;
  private final TransactionCoordinator transactionCoordinator;
  private final InterNodeEventLoops interNode;
  private final KafkaNetworkServer network;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile int exitStatus;

  private BrookServer(Components c) {
    this.config = c.config;
    this.clusterId = c.clusterId;
    this.scheduler = c.scheduler;
    this.disk = c.disk;
    this.quorum = c.quorum;
    this.controllerSide = c.controllerSide;
    this.cluster = c.cluster;
    this.logManager = c.logManager;
    this.delayedOperations = c.delayedOperations;
    this.replicaManager = c.replicaManager;
    this.fetchers = c.fetchers;
    this.mbeans = c.mbeans;
    this.groupCoordinator = c.groupCoordinator;
    this.transactionCoordinator = c.transactionCoordinator;
    this.interNode = c.interNode;
    this.network = c.network;
  }

  /** What start-up builds, in order; closed in reverse if a later step fails. */
  private static final class Components {
    BrokerConfig config;
    String clusterId;
    ScheduledExecutorService scheduler;

    /** The data plane's periodic tasks, on {@link #scheduler}. */
    Scheduler periodic;

    DiskWork disk;
    MetadataQuorum quorum;
    final LocalMetadataBarrier metadataBarrier = new LocalMetadataBarrier();
    ControllerServices controllerSide;
    BrokerClusterServices cluster;
    LogManager logManager;
    DelayedOperations delayedOperations;
    ReplicaManager replicaManager;
    ReplicaFetcherManager fetchers;
    ReplicationMBeans mbeans;
    FetchSessions fetchSessions;
    GroupCoordinator groupCoordinator;
    TransactionCoordinator transactionCoordinator;
    InterNodeEventLoops interNode;
    KafkaNetworkServer network;

    void closeQuietly() {
      closeEach(
          cluster,
          controllerSide,
          network,
          disk,
          fetchers,
          mbeans,
          transactionCoordinator,
          interNode,
          groupCoordinator,
          delayedOperations,
          logManager,
          quorum);
      if (scheduler != null) {
        scheduler.shutdownNow();
      }
    }
  }

  /** Starts a node from its configuration; returns once it accepts connections. */
  public static BrookServer start(BrokerConfig config) throws IOException {
    long started = System.nanoTime();
    for (String key : config.unknownKeys()) {
      if (!SaslListeners.readsKey(key)) {
        log.warn("Unknown configuration key, ignored key={}", key);
      }
    }
    Components c = new Components();
    c.config = config;
    try {
      int nodeId = config.nodeId();
      List<Path> logDirs = config.logDirs();
      MetaProperties.refuseLegacyJournal(logDirs, config.metadataLogDir());
      c.scheduler = Executors.newScheduledThreadPool(2, daemonThreads("brook-scheduler"));
      c.periodic = new ExecutorScheduler(c.scheduler);
      c.disk = DiskWork.start(config.numIoThreads(), config.queuedMaxRequests());
      c.interNode = InterNodeClients.startLoops(config);
      // Every node runs the Raft quorum: a voter on a controller (a single node is a one-voter
      // group), a follower of the log on a broker-only node.
      ClusterSettings settings = ClusterSettings.of(config);
      ClusterQuorum clusterQuorum = settings.startQuorum(config);
      c.quorum = clusterQuorum;
      ClusterController controller =
          new ClusterController(
              new ControllerConfig(config.numPartitions(), config.defaultReplicationFactor())
                  .withUncleanLeaderElectionEnable(
                      (Boolean) config.value("unclean.leader.election.enable"))
                  .withMinInsyncReplicas((Integer) config.value("min.insync.replicas")),
              c.quorum::image,
              new SecureRandom());
      c.clusterId =
          ClusterIdResolver.resolve(
              logDirs,
              nodeId,
              c.quorum,
              config.isController() ? controller : null,
              settings.registrationTimeoutMs(),
              config.isController()
                  ? ScramBootstrap.records(config.originalString(ScramBootstrap.KEY))
                  : List.of());
      LogConfig logDefaults = config.defaultLogConfig();
      BiFunction<MetadataImage, String, LogConfig> topicConfig =
          (image, topic) ->
              TopicConfigs.fromOverrides(
                  image.configs(ConfigResource.Type.TOPIC, topic), logDefaults);
      MetadataQuorum quorum = c.quorum;
      c.logManager =
          LogManager.start(
              config.logManagerConfig(),
              topic -> topicConfig.apply(quorum.image(), topic),
              Time.SYSTEM,
              c.scheduler);
      c.delayedOperations = new DelayedOperations();
      c.controllerSide =
          new ControllerServices(
              settings.controllerSettings(config), clusterQuorum, controller, c.scheduler);
      c.cluster =
          new BrokerClusterServices(
              config, clusterQuorum, c.controllerSide.clusterAdminHandlers(), c.scheduler);
      BrokerClusterServices cluster = c.cluster;
      c.fetchers =
          new ReplicaFetcherManager(
              nodeId,
              cluster::brokerEpoch,
              id -> interBrokerNode(quorum.image(), id, config.interBrokerListenerName()),
              ReplicationConfigs.fetch(config),
              Time.SYSTEM,
              c.interNode,
              InterNodeClients.connections(config, "brook-replica-fetcher"));
      c.replicaManager =
          new ReplicaManager(
              nodeId,
              c.logManager,
              c.delayedOperations,
              topicConfig,
              c.fetchers,
              cluster.isrChangeSender(),
              ReplicationConfigs.lagTimeMaxMs(config),
              Time.SYSTEM,
              c.periodic);
      c.replicaManager.startIsrShrinkTask();
      c.fetchSessions =
          new FetchSessions(
              new FetchSessionCache(
                  config.maxIncrementalFetchSessionCacheSlots(),
                  config.minIncrementalFetchSessionEvictionMs(),
                  Time.SYSTEM),
              Time.SYSTEM);
      c.mbeans = ReplicationMBeans.register(c.replicaManager, c.fetchers::maxLag, c.fetchSessions);
      c.replicaManager.applyMetadata(c.quorum.image());
      c.quorum.addListener(c.replicaManager::applyMetadata);
      // After the replica manager: an image reaching the barrier is applied.
      c.quorum.addListener(c.metadataBarrier);
      c.groupCoordinator =
          new GroupCoordinator(
              CoordinatorConfigs.groups(config),
              new ReplicaCoordinatorLogs(c.replicaManager),
              new ReplicaPartitionEnds(c.replicaManager),
              c.replicaManager::image,
              Time.SYSTEM);
      c.quorum.addListener(c.groupCoordinator::onMetadata);

      TopicAdmin admin =
          new TopicAdmin(
              c.quorum, controller, TopicConfigs::validate, config.autoCreateTopicsEnable());
      return startRoles(c, admin, logDefaults, started);
    } catch (IOException | RuntimeException e) {
      c.closeQuietly();
      throw e;
    }
  }

  /**
   * The rest of start-up: the controller side on a controller, the broker side (forwarding
   * handlers, registration until unfenced) on a broker.
   */
  private static BrookServer startRoles(
      Components c, TopicAdmin admin, LogConfig logDefaults, long started) throws IOException {
    BrokerConfig config = c.config;
    int nodeId = config.nodeId();
    BrokerClusterServices cluster = c.cluster;
    BrokerIdentity identity = new BrokerIdentity(nodeId, c.clusterId, cluster::activeControllerId);
    ProducerIdManager producerIds =
        new ProducerIdManager(() -> cluster.allocateProducerIds(nodeId));
    startTransactionCoordinator(c, producerIds);
    ConfigDescriber describer = new ConfigDescriber(logDefaults, new BrokerConfigEntries(config));
    AutoTopicCreator autoCreate = cluster.autoTopicCreator(config.autoCreateTopicsEnable());
    List<ApiHandler> handlers =
        new ArrayList<>(
            handlers(
                identity,
                c.replicaManager,
                c.disk,
                admin,
                autoCreate,
                describer,
                config.logDirs(),
                ReplicationConfigs.readReplicaSelector(config),
                config.fetchMaxBytes(),
                c.fetchSessions,
                List.of(c.groupCoordinator)));
    handlers.addAll(
        GroupApis.handlers(
            new GroupService(c.groupCoordinator),
            c.replicaManager,
            InternalTopicCreators.viaController(cluster.controllerClient()),
            CoordinatorConfigs.transactionTopic(config)));
    handlers.addAll(transactionHandlers(c));
    handlers.addAll(SaslApis.handlers());
    handlers.add(new AlterUserScramCredentialsHandler(c.quorum));
    handlers.add(new DescribeUserScramCredentialsHandler(c.quorum::image));
    if (config.isController()) {
      c.controllerSide.start(handlers, admin, c.clusterId);
    }
    if (!config.isBroker()) {
      // A controller-only node serves the quorum (and the controller APIs over it) only.
      return finishStart(c, started, List.of());
    }
    // Bound now (registration advertises the ports), accepting only once the controller has
    // unfenced this broker: its metadata has then caught up, so it never serves a leadership its
    // stale local metadata still shows.
    c.network =
        KafkaNetworkServer.bind(
            networkConfig(config),
            new ApiRegistry(
                readYourWrites(c, cluster.brokerHandlers(OffLoopHandlers.wrap(handlers, c.disk))),
                List.<ConnectionListener>of(c.groupCoordinator::onConnectionClosed)),
            SaslListeners.build(config, c.quorum::image));
    List<BrokerEndpoint> endpoints = advertisedEndpoints(config, c.network);
    ReplicaManager replicas = c.replicaManager;
    Map<Path, Uuid> dirIds = MetaProperties.directoryIds(config.logDirs());
    LogManager logs = c.logManager;
    logs.dirFailures()
        .addListener(
            dir -> {
              // With none left the node shuts down instead (see onLogDirFailure).
              if (logs.offlineLogDirectoryCount() < config.logDirs().size()) {
                cluster.reportOfflineReplicas(dirIds.get(dir), replicas.partitionsIn(dir));
              }
            });
    cluster.startBroker(
        config,
        c.clusterId,
        endpoints,
        () -> replicas.image().offset(),
        List.copyOf(dirIds.values()),
        () ->
            dirIds.entrySet().stream()
                .filter(e -> logs.isLogDirOffline(e.getKey()))
                .map(Map.Entry::getValue)
                .toList());
    for (Path failed : logs.dirFailures().offlineDirs()) {
      // Failed while loading, before anyone listened: report every replica that cannot serve
      // (a log that cannot be read may not even be listed, so its directory is unknown).
      cluster.reportOfflineReplicas(dirIds.get(failed), replicas.offlineReplicas());
    }
    c.network.startAccepting();
    return finishStart(c, started, endpoints);
  }

  private static BrookServer finishStart(
      Components c, long started, List<BrokerEndpoint> endpoints) {
    BrookServer server = new BrookServer(c);
    c.logManager.dirFailures().addListener(dir -> server.onLogDirFailure());
    log.info(
        "Brook started nodeId={} roles={} clusterId={} listeners={} durationMs={}",
        c.config.nodeId(),
        c.config.processRoles(),
        c.clusterId,
        endpoints,
        (System.nanoTime() - started) / 1_000_000);
    return server;
  }

  private static List<ApiHandler> handlers(
      BrokerIdentity identity,
      ReplicaManager replicaManager,
      DiskWork disk,
      TopicAdmin admin,
      AutoTopicCreator autoCreate,
      ConfigDescriber describer,
      List<Path> logDirs,
      ReadReplicaSelector readReplicas,
      int fetchMaxBytes,
      FetchSessions fetchSessions,
      List<CoordinatorMarkerWriter> markerWriters) {
    return List.of(
        new ProduceHandler(replicaManager, disk),
        new FetchHandler(replicaManager, readReplicas, fetchMaxBytes, fetchSessions),
        new ListOffsetsHandler(replicaManager, disk),
        new MetadataHandler(identity, replicaManager, autoCreate),
        new DescribeTopicPartitionsHandler(replicaManager),
        new OffsetForLeaderEpochHandler(replicaManager),
        new DeleteRecordsHandler(replicaManager),
        new DescribeProducersHandler(replicaManager),
        new DescribeClusterHandler(identity, replicaManager),
        new WriteTxnMarkersHandler(replicaManager, markerWriters, disk),
        new CreateTopicsHandler(admin, replicaManager, describer),
        new DeleteTopicsHandler(admin, replicaManager),
        new CreatePartitionsHandler(admin),
        new AlterPartitionReassignmentsHandler(admin),
        new ListPartitionReassignmentsHandler(admin),
        new DescribeLogDirsHandler(replicaManager, logDirs),
        new DescribeConfigsHandler(identity, replicaManager, describer),
        new AlterConfigsHandler(admin, replicaManager),
        new IncrementalAlterConfigsHandler(admin, replicaManager, describer));
  }

  /**
   * The transaction coordinator follows {@code __transaction_state} leadership like the group
   * coordinator follows {@code __consumer_offsets}; it also serves idempotent InitProducerId.
   */
  private static void startTransactionCoordinator(Components c, ProducerIdManager producerIds) {
    c.transactionCoordinator =
        TransactionCoordinator.start(
            CoordinatorConfigs.transactions(c.config),
            new ReplicaCoordinatorLogs(c.replicaManager),
            c.replicaManager::image,
            producerIds::nextProducerId,
            new TxnMarkerSender(
                c.replicaManager::image,
                c.config.interBrokerListenerName(),
                InterNodeClients.markers(c.interNode, c.config),
                InterNodeClients.retryBackoffMs(c.config),
                InterNodeClients.retryBackoffMaxMs(c.config),
                Time.SYSTEM),
            Time.SYSTEM);
    c.quorum.addListener(c.transactionCoordinator::onMetadata);
  }

  /** The controller-decided admin APIs answer once this node applied what they changed. */
  private static List<ApiHandler> readYourWrites(Components c, List<ApiHandler> handlers) {
    MetadataQuorum quorum = c.quorum;
    List<ApiHandler> held = new ArrayList<>();
    for (ApiHandler handler : handlers) {
      held.add(
          ForwardingHandler.CONTROLLER_DECIDED.contains(handler.apiKey())
              ? c.metadataBarrier.around(handler, () -> quorum.image().offset())
              : handler);
    }
    return held;
  }

  private static List<ApiHandler> transactionHandlers(Components c) {
    GroupCoordinator groups = c.groupCoordinator;
    return TxnApis.handlers(
        new TransactionService(c.transactionCoordinator, groups::partitionFor, Time.SYSTEM));
  }

  /**
   * The data listeners; controller listeners serve the Raft quorum, (gRPC, in brook-controller).
   */
  private static NetworkConfig networkConfig(BrokerConfig config) {
    List<NetworkConfig.Listener> listeners = new ArrayList<>();
    for (Endpoint endpoint : config.listeners()) {
      if (!config.controllerListenerNames().contains(endpoint.listenerName())) {
        listeners.add(
            new NetworkConfig.Listener(endpoint.listenerName(), endpoint.host(), endpoint.port()));
      }
    }
    return NetworkConfig.builder()
        .listeners(listeners)
        .socketRequestMaxBytes(config.socketRequestMaxBytes())
        .maxConnections(config.maxConnections())
        .maxConnectionsPerIp(config.maxConnectionsPerIp())
        .connectionsMaxIdleMs(config.connectionsMaxIdleMs())
        .numNetworkThreads(config.numNetworkThreads())
        .queuedMaxRequests(config.queuedMaxRequests())
        .queuedMaxRequestBytes(config.queuedMaxRequestBytes())
        .queuedMaxRequestBytesPerConnection(config.queuedMaxRequestBytesPerConnection())
        .requestReceiveTimeoutMs(config.requestReceiveTimeoutMs())
        .maxConnectionsPerIpOverrides(
            NetworkConfig.parseOverrides(config.valueString("max.connections.per.ip.overrides")))
        .build();
  }

  /** Advertised addresses, with an ephemeral port (0) replaced by the port actually bound. */
  private static List<BrokerEndpoint> advertisedEndpoints(
      BrokerConfig config, KafkaNetworkServer network) {
    List<BrokerEndpoint> endpoints = new ArrayList<>();
    for (Endpoint endpoint : config.advertisedListeners()) {
      if (config.controllerListenerNames().contains(endpoint.listenerName())) {
        continue;
      }
      int port =
          endpoint.port() == 0 ? network.boundPort(endpoint.listenerName()) : endpoint.port();
      String host =
          endpoint.host() == null || endpoint.host().isEmpty() ? "localhost" : endpoint.host();
      endpoints.add(
          new BrokerEndpoint(
              endpoint.listenerName(), host, port, endpoint.securityProtocol().name));
    }
    return endpoints;
  }

  public String clusterId() {
    return clusterId;
  }

  public int nodeId() {
    return config.nodeId();
  }

  /** The port a listener is bound to (useful with port 0). */
  public int boundPort(String listenerName) {
    return network.boundPort(listenerName);
  }

  public ReplicaManager replicaManager() {
    return replicaManager;
  }

  public GroupCoordinator groupCoordinator() {
    return groupCoordinator;
  }

  public TransactionCoordinator transactionCoordinator() {
    return transactionCoordinator;
  }

  /**
   * With every log directory offline the node has nothing left to serve: it shuts down (on its own
   * thread, as close waits for the failure handler's) and exits with status 1, as Kafka's broker
   * does. With some directories left it keeps serving them.
   */
  private void onLogDirFailure() {
    if (logManager.offlineLogDirectoryCount() < config.logDirs().size() || closed) {
      return;
    }
    log.error("Every log directory is offline; shutting down dirs={}", config.logDirs());
    exitStatus = 1;
    Thread stopper = new Thread(this::close, "brook-log-dir-shutdown");
    stopper.setDaemon(false);
    stopper.start();
  }

  /** 0, or 1 once the node shut down because every log directory failed. */
  public int exitStatus() {
    return exitStatus;
  }

  /** Blocks until {@link #close()} has finished. */
  public void awaitShutdown() throws InterruptedException {
    stopped.await();
  }

  /**
   * Stops accepting connections, lets in-flight requests finish, completes waiting operations,
   * flushes every log and writes the clean-shutdown marker.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    long started = System.nanoTime();
    if (cluster != null) {
      // Controlled shutdown: leaderships move while this node can still answer for them.
      cluster.shutdownBroker();
    }
    closeEach(
        network,
        cluster,
        controllerSide,
        disk,
        fetchers,
        mbeans,
        transactionCoordinator,
        interNode,
        groupCoordinator,
        delayedOperations,
        logManager,
        quorum);
    if (cluster != null) {
      CleanShutdownEpoch.writeWhereClean(
          config.logDirs(), LogManager.CLEAN_SHUTDOWN_FILE, cluster.brokerEpoch());
    }
    scheduler.shutdownNow();
    log.info("Brook stopped durationMs={}", (System.nanoTime() - started) / 1_000_000);
    stopped.countDown();
  }

  /** The inter-broker endpoint of a registered broker in {@code image}, as a client node. */
  private static Optional<Node> interBrokerNode(
      MetadataImage image, int brokerId, String listener) {
    return image
        .broker(brokerId)
        .flatMap(
            broker ->
                broker.endpoints().stream()
                    .filter(e -> e.listenerName().equals(listener))
                    .findFirst()
                    .or(() -> broker.endpoints().stream().findFirst()))
        .map(e -> new Node(brokerId, e.host(), e.port()));
  }

  private static void closeEach(AutoCloseable... parts) {
    for (AutoCloseable part : parts) {
      if (part == null) {
        continue;
      }
      try {
        part.close();
      } catch (Exception | Error e) {
        // Stopping goes on whatever one part throws (an InternalError of a faulting index
        // mapping on a failed disk included): otherwise the node would hang half-stopped.
        log.error("Error while stopping {}", part.getClass().getSimpleName(), e);
      }
    }
  }

  private static java.util.concurrent.ThreadFactory daemonThreads(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
