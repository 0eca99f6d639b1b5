package io.brook.server;

import io.brook.broker.BrokerIdentity;
import io.brook.broker.admin.ConfigDescriber;
import io.brook.broker.admin.LocalMetadataBarrier;
import io.brook.broker.admin.ProducerIdManager;
import io.brook.broker.api.BrokerApis;
import io.brook.broker.api.group.GroupApis;
import io.brook.broker.api.group.ShareStateApis;
import io.brook.broker.api.txn.TxnApis;
import io.brook.broker.auth.ApiAuthorization;
import io.brook.broker.auth.RequestAuthorizer;
import io.brook.broker.cluster.CleanShutdownEpoch;
import io.brook.broker.cluster.ForwardingHandler;
import io.brook.broker.coordinator.ReplicaCoordinatorLogs;
import io.brook.broker.coordinator.ReplicaPartitionEnds;
import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.fetch.FetchSessionCache;
import io.brook.broker.fetch.FetchSessions;
import io.brook.broker.metrics.PartitionLogMetrics;
import io.brook.broker.metrics.ReplicaManagerMetrics;
import io.brook.broker.quota.ClientQuotaManager;
import io.brook.broker.quota.ControllerMutationQuotas;
import io.brook.broker.quota.IpConnectionQuotas;
import io.brook.broker.quota.ReplicationQuota;
import io.brook.broker.replica.DiskWork;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.replica.fetcher.ReplicaFetcherManager;
import io.brook.broker.share.ShareAcknowledgeHandler;
import io.brook.broker.share.ShareDeadLetters;
import io.brook.broker.share.ShareFetchHandler;
import io.brook.broker.share.ShareGroupConfig;
import io.brook.broker.share.SharePartitionManager;
import io.brook.broker.share.ShareStatePersister;
import io.brook.broker.time.ExecutorScheduler;
import io.brook.broker.time.Scheduler;
import io.brook.broker.txn.TxnMarkerSender;
import io.brook.broker.txn.TxnPartitionVerifier;
import io.brook.controller.ControllerServices;
import io.brook.controller.quorum.ClusterQuorum;
import io.brook.controller.state.ControllerConfig;
import io.brook.controller.state.FeatureControl;
import io.brook.coordinator.api.GroupService;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.share.ShareCoordinator;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.coordinator.txn.api.TransactionService;
import io.brook.metadata.authorizer.StandardAuthorizer;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import io.brook.metadata.quorum.MetadataQuorum;
import io.brook.metadata.record.BrokerEndpoint;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.ConnectionListener;
import io.brook.protocol.FeatureLevels;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.client.InterNodeEventLoops;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.protocol.metrics.RequestMetrics;
import io.brook.protocol.network.KafkaNetworkServer;
import io.brook.protocol.network.ListenerSecurity;
import io.brook.protocol.sasl.SaslApis;
import io.brook.protocol.sasl.SaslListenerConfig;
import io.brook.server.admin.AdminServer;
import io.brook.server.cluster.BrokerClusterServices;
import io.brook.server.cluster.ClusterSettings;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Endpoint;
import io.brook.server.console.ConsoleHttp;
import io.brook.server.http.HttpApiServer;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.TopicConfigs;
import io.brook.storage.manager.LogManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiFunction;
import java.util.function.Function;
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
  private final BrokerMetrics metrics;
  private final GroupCoordinator groupCoordinator;
  private final ConsumerLagMetrics lagMetrics;
  private final TransactionCoordinator transactionCoordinator;
  private final TxnPartitionVerifier txnVerifier;
  private final ShareCoordinator shareCoordinator;
  private final SharePartitionManager shares;
  private final InterNodeEventLoops interNode;
  private final KafkaNetworkServer network;
  private final NodeTls tls;
  private final SaslListeners.Built sasl;
  private final AdminServer admin;
  private final HttpApiServer http;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile int exitStatus;

  /** Set when the Raft journal could not be written; see {@link #onJournalFailure}. */
  private volatile boolean journalFailed;

  /** The parts {@link #closeOnce} closed. */
  private final Set<AutoCloseable> closedParts = Collections.newSetFromMap(new IdentityHashMap<>());

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
    this.metrics = c.metrics;
    this.groupCoordinator = c.groupCoordinator;
    this.lagMetrics = c.lagMetrics;
    this.transactionCoordinator = c.transactionCoordinator;
    this.txnVerifier = c.txnVerifier;
    this.shareCoordinator = c.shareCoordinator;
    this.shares = c.shares;
    this.interNode = c.interNode;
    this.network = c.network;
    this.tls = c.tls;
    this.sasl = c.sasl;
    this.admin = c.admin;
    this.http = c.http;
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
    ConfigDescriber describer;
    final LocalMetadataBarrier metadataBarrier = new LocalMetadataBarrier();
    ControllerServices controllerSide;
    BrokerClusterServices cluster;

    /** Holds leaderships back until this process's registration is in the metadata. */
    RegistrationGate registrationGate;

    LogManager logManager;
    DelayedOperations delayedOperations;
    ReplicaManager replicaManager;
    ReplicaFetcherManager fetchers;

    /** The node's one metrics registry; every component registers into it. */
    BrokerMetrics metrics;

    FetchSessions fetchSessions;

    /** Share groups' delivery state at this node's leaders; its sweep runs on {@link #periodic}. */
    SharePartitionManager shares;

    ShareStatePersister shareStates;

    /** The durable state of share-partitions, in {@code __share_group_state}. */
    ShareCoordinator shareCoordinator;

    GroupCoordinator groupCoordinator;
    ConsumerLagMetrics lagMetrics;
    TransactionCoordinator transactionCoordinator;
    TxnPartitionVerifier txnVerifier;
    TransactionService transactions;
    RequestAuthorizer authorizer;
    InterNodeEventLoops interNode;
    KafkaNetworkServer network;
    NodeTls tls;
    SaslListeners.Built sasl;
    AdminChecks checks;
    AdminServer admin;
    ClientQuotaManager quotas;
    ReplicationQuota leaderThrottle;

    /** What the Kafka listeners serve; the HTTP API sends its requests here too. */
    ApiRegistry apis;

    HttpApiServer http;

    void closeQuietly() {
      closeEach(
          http,
          admin,
          cluster,
          controllerSide,
          network,
          sasl,
          tls,
          disk,
          fetchers,
          lagMetrics,
          metrics,
          transactionCoordinator,
          txnVerifier,
          shares,
          shareCoordinator,
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

  /** The log directories and {@code metadata.log.dir}, each once: every one gets the cluster id. */
  private static List<Path> withMetadataLogDir(List<Path> logDirs, Path metadataLogDir) {
    List<Path> dirs = new ArrayList<>(logDirs);
    if (!dirs.contains(metadataLogDir)) {
      dirs.add(metadataLogDir);
    }
    return dirs;
  }

  /**
   * Starts a node from its configuration; returns once it accepts connections. Every node runs the
   * same steps; the roles decide which of the last two run.
   */
  public static BrookServer start(BrokerConfig config) throws IOException {
    long started = System.nanoTime();
    for (String key : config.unknownKeys()) {
      log.warn("Unknown configuration key, ignored key={}", key);
    }
    Components c = new Components();
    c.config = config;
    try {
      startThreads(c);
      startAdmin(c);
      startMetadata(c);
      startDataPlane(c);
      c.checks.logs(c.logManager);
      startCoordinators(c);
      if (config.isController()) {
        c.controllerSide.start(c.clusterId);
      }
      List<BrokerEndpoint> endpoints = config.isBroker() ? startBroker(c) : List.of();
      // Once serving: three gauges per hosted partition, 72,000 MBeans for 24,000 partitions,
      // took seconds to register, and a restarted broker waited for them before it listened.
      c.quorum.addListener(new PartitionLogMetrics(c.metrics, c.replicaManager));
      if (config.isBroker()) {
        startHttpApi(c);
        startConsole(c);
      }
      c.checks.serving();
      BrookServer server = new BrookServer(c);
      c.logManager.dirFailures().addListener(server::onLogDirFailure);
      c.quorum.onJournalFailure(server::onJournalFailure);
      // Key-value pairs: fields of their own in JSON logs (docs/operations.md, "Logs").
      log.atInfo()
          .setMessage("Brook started")
          .addKeyValue("nodeId", config.nodeId())
          .addKeyValue("roles", config.processRoles())
          .addKeyValue("clusterId", c.clusterId)
          .addKeyValue("listeners", endpoints)
          .addKeyValue("durationMs", (System.nanoTime() - started) / 1_000_000)
          .log();
      return server;
    } catch (IOException | RuntimeException e) {
      c.closeQuietly();
      throw e;
    }
  }

  /** The shared scheduler, the disk pool and the inter-node event loops. */
  private static void startThreads(Components c) throws IOException {
    BrokerConfig config = c.config;
    MetaProperties.refuseLegacyJournal(config.logDirs(), config.metadataLogDir());
    c.metrics = new BrokerMetrics(Time.SYSTEM);
    c.scheduler = Executors.newScheduledThreadPool(2, daemonThreads("brook-scheduler"));
    c.periodic = new ExecutorScheduler(c.scheduler);
    c.disk = DiskWork.start(config.numIoThreads(), config.queuedMaxRequests());
    c.disk.registerIdleRatio(c.metrics);
    c.interNode = InterNodeClients.startLoops(config);
    c.tls = NodeTls.start(config, c.scheduler);
  }

  /**
   * The admin HTTP listener, when {@code brook.admin.listener} is set: first, so /ready can be
   * watched while the node registers.
   */
  private static void startAdmin(Components c) {
    BrokerConfig config = c.config;
    c.checks = new AdminChecks(config.nodeId(), config.isBroker(), config.isController());
    java.net.URI address = config.adminListener();
    if (address != null) {
      AdminChecks checks = c.checks;
      c.admin =
          AdminServer.start(
              c.metrics, checks::health, checks::ready, address.getHost(), address.getPort());
    }
  }

  /**
   * The Raft quorum (every node runs it: a voter on a controller, a single node being a one-voter
   * group, a follower of the log on a broker-only node), the controller side and the broker's
   * cluster side built on it (started later, by role), and the cluster id.
   */
  private static void startMetadata(Components c) throws IOException {
    BrokerConfig config = c.config;
    ClusterSettings settings = ClusterSettings.of(config);
    Uuid metadataDirectoryId =
        MetaProperties.metadataDirectoryId(config.metadataLogDir(), config.nodeId());
    ClusterQuorum quorum = settings.startQuorum(config, metadataDirectoryId);
    c.quorum = quorum;
    c.describer = new ConfigDescriber(config.defaultLogConfig(), new BrokerConfigEntries(config));
    c.authorizer = requestAuthorizer(c);
    ControllerMutationQuotas mutationQuotas =
        new ControllerMutationQuotas(
            c.metrics.registry(),
            Time.SYSTEM,
            config.controllerQuotaWindowNum(),
            config.controllerQuotaWindowSizeSeconds());
    mutationQuotas.onMetadata(quorum.image());
    quorum.addListener(mutationQuotas::onMetadata);
    c.controllerSide =
        new ControllerServices(
            settings.controllerSettings(config),
            quorum,
            new ControllerConfig(config.numPartitions(), config.defaultReplicationFactor())
                .withUncleanLeaderElectionEnable(
                    (Boolean) config.value("unclean.leader.election.enable"))
                .withMinInsyncReplicas((Integer) config.value("min.insync.replicas")),
            TieredStorage.topicValidator(config),
            groupConfigs ->
                ShareGroupConfig.validate(
                    groupConfigs, CoordinatorConfigs.shareGroupBounds(config)),
            new DescribedTopicConfigs(c.describer),
            c.authorizer,
            mutationQuotas,
            c.scheduler);
    c.cluster =
        new BrokerClusterServices(
            config,
            quorum,
            c.controllerSide.adminHandlers(),
            c.controllerSide::brokerConnectionLost,
            c.scheduler);
    c.registrationGate =
        new RegistrationGate(config.nodeId(), c.cluster.incarnationId(), config.isBroker());
    c.checks.quorum(quorum, c.cluster);
    ControllerMetrics.register(c.metrics, quorum, config.isController());
    c.clusterId =
        ClusterIdResolver.resolve(
            withMetadataLogDir(config.logDirs(), config.metadataLogDir()),
            config.nodeId(),
            quorum,
            config.isController() ? c.controllerSide.controller() : null,
            settings.registrationTimeoutMs(),
            config.isController()
                ? ScramBootstrap.records(config.originalString(ScramBootstrap.KEY))
                : List.of());
  }

  /**
   * The logs, the replica manager following the metadata image, the replica fetchers, fetch
   * sessions and the replication MBeans.
   */
  private static void startDataPlane(Components c) throws IOException {
    BrokerConfig config = c.config;
    int nodeId = config.nodeId();
    LogConfig logDefaults = config.defaultLogConfig();
    BiFunction<MetadataImage, String, LogConfig> topicConfig =
        (image, topic) ->
            TieredStorage.effective(
                config,
                TopicConfigs.fromOverrides(
                    image.configs(ConfigResource.Type.TOPIC, topic), logDefaults));
    MetadataQuorum quorum = c.quorum;
    BrokerClusterServices cluster = c.cluster;
    c.logManager =
        LogManager.start(
            config.logManagerConfig(),
            topic -> topicConfig.apply(quorum.image(), topic),
            Time.SYSTEM,
            c.scheduler);
    TieredStorage.attach(config, c.logManager);
    c.delayedOperations = new DelayedOperations();
    c.leaderThrottle = replicationQuota(c, ReplicationQuota.Side.LEADER);
    c.fetchers =
        new ReplicaFetcherManager(
            nodeId,
            cluster::brokerEpoch,
            id -> interBrokerNode(quorum.image(), id, config.interBrokerListenerName()),
            ReplicationConfigs.fetch(config),
            Time.SYSTEM,
            c.interNode,
            InterNodeClients.connections(config, c.tls, "brook-replica-fetcher"),
            replicationQuota(c, ReplicationQuota.Side.FOLLOWER));
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
    TieredStorage.start(c.logManager, c.replicaManager, c.fetchers, c.metrics);
    c.fetchSessions =
        new FetchSessions(
            new FetchSessionCache(
                config.maxIncrementalFetchSessionCacheSlots(),
                config.minIncrementalFetchSessionEvictionMs(),
                Time.SYSTEM),
            Time.SYSTEM);
    ReplicaManagerMetrics.register(
        c.metrics, c.replicaManager, c.fetchers::maxLag, c.fetchSessions);
    c.shareCoordinator =
        new ShareCoordinator(
            CoordinatorConfigs.shareState(config),
            new ReplicaCoordinatorLogs(c.replicaManager, c.cluster.lease()),
            c.replicaManager::image,
            Time.SYSTEM);
    c.shareStates =
        new ShareStatePersister(
            c.shareCoordinator,
            InternalTopicCreators.viaController(cluster.controllerClient()),
            c.replicaManager::image,
            nodeId,
            config.interBrokerListenerName(),
            InterNodeClients.shareState(c.interNode, config, c.tls));
    // The leaders' persister is also how the group coordinator reaches the share coordinators.
    c.shares =
        new SharePartitionManager(
            c.replicaManager,
            CoordinatorConfigs.shareLimits(config),
            Time.SYSTEM::hiResClockMs,
            c.shareStates,
            new ShareDeadLetters(
                c.replicaManager::image,
                config.interBrokerListenerName(),
                InterNodeClients.shareDeadLetters(c.interNode, config, c.tls),
                ((Number) config.value("request.timeout.ms")).intValue()));
    c.shares.start(c.periodic);
    ShareGroupMetrics.register(c.metrics, c.shares, c.periodic);
    if (c.registrationGate.admits(quorum.image())) {
      c.replicaManager.applyMetadata(quorum.image());
    }
    quorum.addListener(c.registrationGate.guard(c.replicaManager::applyMetadata));
    // After the replica manager: an image reaching the barrier is applied.
    quorum.addListener(c.registrationGate.guard(c.metadataBarrier));
  }

  /** The group and transaction coordinators, following their topics' leaderships. */
  private static void startCoordinators(Components c) {
    c.groupCoordinator =
        new GroupCoordinator(
            CoordinatorConfigs.groups(c.config),
            new ReplicaCoordinatorLogs(c.replicaManager, c.cluster.lease()),
            new ReplicaPartitionEnds(c.replicaManager),
            c.replicaManager::image,
            Time.SYSTEM);
    c.quorum.addListener(c.registrationGate.guard(c.groupCoordinator::onMetadata));
    CoordinatorMetrics.register(
        c.metrics, "group-coordinator-metrics", c.groupCoordinator.runtime());
    c.lagMetrics =
        ConsumerLagMetrics.start(
            c.metrics,
            c.groupCoordinator,
            InterNodeClients.lagReads(c.interNode, c.config, c.tls, c.replicaManager::image),
            c.scheduler,
            c.config.lagMetricsIntervalMs(),
            c.config.lagMetricsMaxSeries());
    int nodeId = c.config.nodeId();
    BrokerClusterServices cluster = c.cluster;
    startTransactionCoordinator(
        c, new ProducerIdManager(() -> cluster.allocateProducerIds(nodeId)));
    c.quorum.addListener(c.registrationGate.guard(c.shareCoordinator::onMetadata));
    CoordinatorMetrics.register(
        c.metrics, "share-coordinator-metrics", c.shareCoordinator.runtime());
    c.transactions = transactionService(c);
    c.txnVerifier = txnVerifier(c, c.transactions);
    registerVerifierMetrics(c.metrics, c.txnVerifier);
  }

  /**
   * What CONCURRENT_TRANSACTIONS costs transaction protocol V2 producers: the leaders' repeated
   * asks against the additions handed back to producers (each one a produce retried after the
   * producer's own backoff). Counts, so they read the same however loaded the machine is.
   */
  private static void registerVerifierMetrics(BrokerMetrics metrics, TxnPartitionVerifier v) {
    String type = "AddPartitionsToTxnManager";
    metrics.gauge(
        "kafka.server", type, "ConcurrentTransactionsRetries", v::concurrentTransactionsRetries);
    metrics.gauge(
        "kafka.server", type, "ConcurrentTransactionsReturned", v::concurrentTransactionsReturned);
  }

  /**
   * Each data listener's security: TLS below (SSL, SASL_SSL), SASL authentication above it
   * (SASL_PLAINTEXT, SASL_SSL), checking SCRAM credentials against the current metadata image.
   */
  private static Function<String, ListenerSecurity> listenerSecurity(Components c) {
    c.sasl = SaslListeners.build(c.config, c.quorum::image);
    Map<String, SaslListenerConfig> sasl = c.sasl.listeners();
    NodeTls tls = c.tls;
    return listener -> {
      ListenerSecurity below = tls.listenerSecurity(listener);
      SaslListenerConfig authentication = sasl.get(listener);
      return authentication == null ? below : below.withSasl(authentication);
    };
  }

  /** The feature levels ApiVersions advertises: this version's and the cluster's finalized ones. */
  private static FeatureLevels featureLevels(MetadataImage image) {
    return new FeatureLevels(FeatureControl.SUPPORTED, image.features(), image.offset());
  }

  /** One side of the replication throttle (KIP-73), following the metadata. */
  private static ReplicationQuota replicationQuota(Components c, ReplicationQuota.Side side) {
    ReplicationQuota quota =
        new ReplicationQuota(
            side,
            c.config.nodeId(),
            c.metrics.registry(),
            Time.SYSTEM,
            c.config.replicationQuotaWindowNum(),
            c.config.replicationQuotaWindowSizeSeconds());
    quota.onMetadata(c.quorum.image());
    c.quorum.addListener(quota::onMetadata);
    return quota;
  }

  /**
   * The broker side: the listeners, bound now (registration advertises the ports) and accepting
   * only once the controller has unfenced this broker: its metadata has then caught up, so it never
   * serves a leadership its stale local metadata still shows.
   *
   * @return the advertised endpoints
   */
  private static List<BrokerEndpoint> startBroker(Components c) throws IOException {
    BrokerConfig config = c.config;
    BrokerClusterServices cluster = c.cluster;
    c.quotas =
        new ClientQuotaManager(
            c.metrics.registry(),
            Time.SYSTEM,
            config.quotaWindowNum(),
            config.quotaWindowSizeSeconds(),
            config.fairShareBytesPerSecond());
    c.quotas.onMetadata(c.quorum.image());
    c.quorum.addListener(c.quotas::onMetadata);
    c.apis =
        new ApiRegistry(
            ApiAuthorization.wrap(
                apiHandlers(c),
                c.authorizer,
                id -> c.quorum.image().topic(id).map(TopicImage::name).orElse(null)),
            List.<ConnectionListener>of(
                c.groupCoordinator::onConnectionClosed, c.shares::onConnectionClosed),
            c.quotas,
            () -> featureLevels(c.replicaManager.image()));
    c.network =
        KafkaNetworkServer.bind(networkConfig(config), c.apis, listenerSecurity(c), c.metrics);
    IpConnectionQuotas ipQuotas =
        new IpConnectionQuotas(
            c.network.connectionLimiter().ipConnectionRates(),
            config.quotaWindowNum(),
            config.quotaWindowSizeSeconds());
    ipQuotas.onMetadata(c.quorum.image());
    c.quorum.addListener(ipQuotas::onMetadata);
    List<BrokerEndpoint> endpoints = advertisedEndpoints(config, c.network);
    ReplicaManager replicas = c.replicaManager;
    Map<Path, Uuid> dirIds = MetaProperties.directoryIds(config.logDirs());
    LogManager logs = c.logManager;
    logs.dirFailures()
        .addListener(
            dir -> {
              // With none left, or with the metadata log's gone, the node shuts down instead (see
              // onLogDirFailure).
              if (logs.offlineLogDirectoryCount() < config.logDirs().size()
                  && !isMetadataLogDir(config, dir)) {
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
                .toList(),
        // Fetches sent before carry no broker epoch, and a leader takes a follower into an ISR
        // only with one (KIP-903): fetch again at once rather than after the fetch in flight,
        // which a leader holds for up to replica.fetch.wait.max.ms.
        epoch -> c.fetchers.fetchAgainNow());
    for (Path failed : logs.dirFailures().offlineDirs()) {
      // Failed while loading, before anyone listened: report every replica that cannot serve
      // (a log that cannot be read may not even be listed, so its directory is unknown).
      cluster.reportOfflineReplicas(dirIds.get(failed), replicas.offlineReplicas());
    }
    c.network.startAccepting();
    return endpoints;
  }

  /**
   * The HTTP API, when {@code brook.http.listener} is set: over the same handlers as the Kafka
   * listeners, answering with the addresses of its authentication listener, else of the first
   * client listener.
   */
  private static void startHttpApi(Components c) {
    BrokerConfig config = c.config;
    io.brook.server.config.HttpApiConfig settings = config.httpApi();
    if (settings.listener() == null) {
      return;
    }
    String listener =
        settings.authenticationListener() != null
            ? settings.authenticationListener()
            : config.listeners().stream()
                .map(io.brook.server.config.Endpoint::listenerName)
                .filter(name -> !config.controllerListenerNames().contains(name))
                .findFirst()
                .orElseThrow();
    c.http =
        HttpApiServer.start(
            settings,
            c.apis,
            listener,
            config.nodeId(),
            HttpCredentials.of(config, c.quorum::image),
            c.tls.httpServer(),
            new HttpForwarder(c.quorum::image, c.interNode, config, c.tls));
  }

  /** Console requests in flight to one other broker, and queued behind them; more fail at once. */
  private static final int CONSOLE_IN_FLIGHT = 8;

  private static final int CONSOLE_QUEUED = 32;

  /** How long the console waits for the leaders' ends of a page's groups. */
  private static final long CONSOLE_LAG_TIMEOUT_MS = 5_000;

  /**
   * The web console on the admin listener, when there is one: the whole cluster as seen from this
   * broker, asking the other brokers what only they know (docs/operations.md). Refused, with the
   * reason logged, when the listener is reachable from other machines while the Kafka listeners
   * need SASL and no login can be checked.
   */
  private static void startConsole(Components c) {
    if (c.admin == null) {
      return;
    }
    BrokerConfig config = c.config;
    String clientListener =
        config.listeners().stream()
            .filter(e -> !config.controllerListenerNames().contains(e.listenerName()))
            .findFirst()
            .orElseThrow()
            .listenerName();
    boolean sasl =
        config.listeners().stream()
            .filter(e -> !config.controllerListenerNames().contains(e.listenerName()))
            .anyMatch(e -> e.securityProtocol().name().startsWith("SASL_"));
    LogConfig defaults = config.defaultLogConfig();
    MetadataQuorum quorum = c.quorum;
    // The console's own connections to the other brokers, closed with it: a few requests in
    // flight per broker and a short queue, so a page's fan-out stays bounded.
    HttpForwarder peers =
        new HttpForwarder(
            quorum::image,
            c.interNode,
            config,
            c.tls,
            "brook-console",
            CONSOLE_IN_FLIGHT,
            CONSOLE_QUEUED);
    LeaderLagReads leaderEnds =
        InterNodeClients.consoleLagReads(
            c.interNode, config, c.tls, c.replicaManager::image, CONSOLE_LAG_TIMEOUT_MS);
    ConsoleHttp console =
        c.admin.attachConsole(
            new ConsoleHttp.Builder()
                .access(
                    config.adminListener().getHost(),
                    sasl,
                    HttpCredentials.of(config, quorum::image))
                .sources(
                    quorum::image,
                    c.replicaManager,
                    c.groupCoordinator,
                    c.cluster::activeControllerId,
                    () ->
                        quorum instanceof ClusterQuorum cluster
                            ? cluster.quorumState()
                            : Optional.empty(),
                    c.apis,
                    clientListener,
                    config.nodeId(),
                    defaults.retentionMs(),
                    String.join(",", defaults.cleanupPolicy()),
                    defaults.minInSyncReplicas(),
                    c.metrics,
                    c.scheduler)
                .cluster(peers, leaderEnds::read, peers, leaderEnds)
                .transactionMaxTimeoutMs(CoordinatorConfigs.transactions(config).maxTimeoutMs()));
    if (console.serving()) {
      log.info(
          "Console served at /console/ on the admin listener access={}", console.accessReason());
    } else {
      log.warn("Console refused: {}", console.accessReason());
    }
  }

  /**
   * What a broker listener serves, each component contributing its own APIs: the broker's ({@link
   * BrokerApis}), the group and transaction coordinators' ({@link GroupApis}, {@link TxnApis}) and
   * the controller's admin APIs, forwarded ({@link BrokerClusterServices}); then who runs them (the
   * disk pool, {@code brook-admin}) and when they answer (read your writes).
   */
  private static List<ApiHandler> apiHandlers(Components c) {
    BrokerConfig config = c.config;
    BrokerClusterServices cluster = c.cluster;
    List<ApiHandler> handlers = new ArrayList<>();
    handlers.addAll(
        BrokerApis.handlers(
            new BrokerIdentity(config.nodeId(), c.clusterId, cluster::activeControllerId),
            c.replicaManager,
            c.disk,
            cluster.autoTopicCreator(config.autoCreateTopicsEnable()),
            c.describer,
            config.logDirs(),
            ReplicationConfigs.readReplicaSelector(config),
            config.fetchMaxBytes(),
            c.fetchSessions,
            List.of(c.groupCoordinator),
            (Boolean) config.value("transaction.partition.verification.enable")
                ? Optional.of(c.txnVerifier)
                : Optional.empty(),
            c.authorizer,
            c.quotas::fetchQuotaWindowBytes,
            c.leaderThrottle));
    handlers.addAll(
        GroupApis.handlers(
            new GroupService(c.groupCoordinator, c.shareStates),
            c.replicaManager,
            InternalTopicCreators.viaController(cluster.controllerClient()),
            CoordinatorConfigs.transactionTopic(config),
            c.shareCoordinator.stateTopic(),
            c.txnVerifier));
    handlers.addAll(TxnApis.handlers(c.transactions));
    handlers.addAll(ShareStateApis.handlers(c.shareCoordinator));
    handlers.add(new ShareFetchHandler(c.shares, c.authorizer));
    handlers.add(new ShareAcknowledgeHandler(c.shares, c.authorizer));
    // SaslHandshake and SaslAuthenticate on listeners without SASL (a SASL listener's connections
    // answer them themselves).
    handlers.addAll(SaslApis.handlers());
    return RequestMetrics.wrap(
        readYourWrites(c, cluster.brokerHandlers(OffLoopHandlers.wrap(handlers, c.disk))),
        c.metrics);
  }

  /**
   * The transaction coordinator follows {@code __transaction_state} leadership like the group
   * coordinator follows {@code __consumer_offsets}; it also serves idempotent InitProducerId.
   */
  private static void startTransactionCoordinator(Components c, ProducerIdManager producerIds) {
    c.transactionCoordinator =
        TransactionCoordinator.start(
            CoordinatorConfigs.transactions(c.config),
            new ReplicaCoordinatorLogs(c.replicaManager, c.cluster.lease()),
            c.replicaManager::image,
            producerIds::nextProducerId,
            new TxnMarkerSender(
                c.replicaManager::image,
                c.config.interBrokerListenerName(),
                InterNodeClients.markers(c.interNode, c.config, c.tls),
                InterNodeClients.retryBackoffMs(c.config),
                InterNodeClients.retryBackoffMaxMs(c.config),
                Time.SYSTEM),
            Time.SYSTEM);
    c.quorum.addListener(c.registrationGate.guard(c.transactionCoordinator::onMetadata));
    CoordinatorMetrics.register(
        c.metrics, "transaction-coordinator-metrics", c.transactionCoordinator.runtime());
  }

  /**
   * The ACL checks every handler shares: Kafka's StandardAuthorizer rules when {@code
   * authorizer.class.name} names it, over the ACLs of this node's metadata image.
   */
  private static RequestAuthorizer requestAuthorizer(Components c) {
    BrokerConfig config = c.config;
    if (!config.authorizerEnabled()) {
      return RequestAuthorizer.ALLOW_ALL;
    }
    MetadataQuorum quorum = c.quorum;
    return new RequestAuthorizer(
        new StandardAuthorizer(Set.copyOf(config.superUsers()), config.allowEveryoneIfNoAclFound()),
        () -> quorum.image().acls());
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

  private static TransactionService transactionService(Components c) {
    GroupCoordinator groups = c.groupCoordinator;
    return new TransactionService(c.transactionCoordinator, groups::partitionFor, Time.SYSTEM);
  }

  /**
   * Produce asks the transaction coordinators about partitions before a transaction's first write
   * to them (KIP-890), unless {@code transaction.partition.verification.enable} is false;
   * TxnOffsetCommit v5+ adds the offsets partition through it whatever that setting.
   */
  private static TxnPartitionVerifier txnVerifier(Components c, TransactionService transactions) {
    return new TxnPartitionVerifier(
        transactions,
        c.replicaManager::image,
        c.config.nodeId(),
        c.config.interBrokerListenerName(),
        InterNodeClients.txnVerifier(c.interNode, c.config, c.tls),
        new TxnPartitionVerifier.ConcurrentRetry(
            c.periodic,
            Time.SYSTEM::hiResClockMs,
            c.config.addPartitionsToTxnRetryBackoffMs(),
            c.config.addPartitionsToTxnRetryTimeoutMs()));
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
        .acceptLimits(config.acceptLimits())
        .socketSendBufferBytes(config.socketSendBufferBytes())
        .socketReceiveBufferBytes(config.socketReceiveBufferBytes())
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

  /** The port the admin HTTP listener is bound to, or -1 without one. */
  public int adminPort() {
    return admin == null ? -1 : admin.port();
  }

  /** The port the HTTP API is bound to, or -1 without one. */
  public int httpPort() {
    return http == null ? -1 : http.port();
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

  /** The node's metrics registry: components add their sensors and gauges here. */
  public BrokerMetrics metrics() {
    return metrics;
  }

  /**
   * With every log directory offline the node has nothing left to serve, and with the one holding
   * the metadata log offline it can no longer keep its Raft journal or follow the cluster's
   * metadata: either way it shuts down (on its own thread, as close waits for the failure
   * handler's) and exits with status 1, as Kafka's broker does. With other directories left and the
   * metadata log's healthy it keeps serving them.
   */
  private void onLogDirFailure(Path dir) {
    if (closed) {
      return;
    }
    if (isMetadataLogDir(config, dir)) {
      log.error("The metadata log directory is offline; shutting down dir={}", dir);
    } else if (logManager.offlineLogDirectoryCount() < config.logDirs().size()) {
      return;
    } else {
      log.error("Every log directory is offline; shutting down dirs={}", config.logDirs());
    }
    exitStatus = 1;
    Thread stopper = new Thread(this::close, "brook-log-dir-shutdown");
    stopper.setDaemon(false);
    stopper.start();
  }

  /**
   * The Raft journal could not be written (Ratis closed it): the node can no longer follow the
   * cluster's metadata, nor lead it, so it shuts down and exits with status 1, whether or not its
   * log directories noticed anything (the journal may be in a directory of its own).
   */
  private void onJournalFailure(Throwable cause) {
    if (closed) {
      return;
    }
    log.error(
        "The metadata log could not be written; shutting down dir={}", config.metadataLogDir());
    journalFailed = true;
    exitStatus = 1;
    Thread stopper = new Thread(this::close, "brook-journal-failure-shutdown");
    stopper.setDaemon(false);
    stopper.start();
  }

  /** Whether {@code dir} is the directory holding this node's metadata log. */
  private static boolean isMetadataLogDir(BrokerConfig config, Path dir) {
    return dir.toAbsolutePath()
        .normalize()
        .equals(config.metadataLogDir().toAbsolutePath().normalize());
  }

  /**
   * Whether this node stops because its Raft journal could not be written, or because its log
   * directories failed and the metadata log directory is one of them or on the same file system (a
   * full disk fills both).
   */
  private boolean journalDiskFailed() {
    if (journalFailed) {
      return true;
    }
    if (exitStatus != 1) {
      return false;
    }
    Path journal = config.metadataLogDir();
    for (Path dir : config.logDirs()) {
      try {
        if (isMetadataLogDir(config, dir)
            || Files.getFileStore(dir).equals(Files.getFileStore(journal))) {
          return true;
        }
      } catch (IOException e) {
        return true; // a disk that cannot even say what it is counts as failed
      }
    }
    return false;
  }

  /**
   * 0, or 1 once the node shut down because every log directory, the metadata log directory or the
   * Raft journal failed.
   */
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
    boolean journalGone = quorum != null && journalDiskFailed();
    if (journalGone) {
      // The journal, or its disk, failed: this node's view of the metadata stops moving (it can
      // neither write nor apply entries), so it must not be told to clients any more, and the
      // requests waiting here would wait for an image that never comes. Its connections close at
      // once, as a crash would close them: clients retry on the other nodes, and a producer's
      // unanswered request is what its idempotence covers.
      if (network != null && closedParts.add(network)) {
        network.close(Duration.ZERO);
      }
      closeOnce(http, admin);
      // The Raft server stops before the controlled shutdown, whichever failure was noticed first:
      // a leader whose journal failed can commit nothing, and a controlled shutdown sent while it
      // still ran would wait there for its whole timeout. Once it stopped, the other voters elect
      // a leader within an election timeout and the controlled shutdown, through the clients that
      // stay, reaches that one. Nothing more is written to the failed disk (see
      // MetadataQuorum.stopServerAfterDiskFailure).
      log.error(
          "The metadata log directory's disk failed; stopping the Raft server without handing"
              + " leadership over dir={}",
          config.metadataLogDir());
      try {
        quorum.stopServerAfterDiskFailure();
      } catch (RuntimeException e) {
        // The stop goes on: a node left half-stopped would hold its leaderships until fenced.
        log.error("Error while stopping the Raft server", e);
      }
    }
    if (cluster != null) {
      // Controlled shutdown: leaderships move while this node can still answer for them, and the
      // followers that take them over first learn the high watermarks this node acknowledged.
      replicaManager.tellFollowersHighWatermarksAtOnce();
      cluster.shutdownBroker();
    }
    // Before the listeners close: an active controller that went on being one while this node
    // stopped would leave every other broker without a controller until the quorum closed, last.
    if (quorum != null && !journalGone) {
      quorum.stepDown();
    }
    closeOnce(
        http,
        admin,
        network,
        sasl,
        tls,
        cluster,
        controllerSide,
        disk,
        fetchers,
        lagMetrics,
        metrics,
        transactionCoordinator,
        txnVerifier,
        shares,
        shareCoordinator,
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

  /** {@link #closeEach}, skipping the parts an earlier call closed. */
  private void closeOnce(AutoCloseable... parts) {
    for (AutoCloseable part : parts) {
      if (part != null && closedParts.add(part)) {
        closeEach(part);
      }
    }
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
