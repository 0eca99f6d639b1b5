package io.brook.server.config;

import static io.brook.server.config.NodeSettings.ADVERTISED_LISTENERS;
import static io.brook.server.config.NodeSettings.BROKER_ID;
import static io.brook.server.config.NodeSettings.CONTROLLER_LISTENER_NAMES;
import static io.brook.server.config.NodeSettings.INTER_BROKER_LISTENER_NAME;
import static io.brook.server.config.NodeSettings.INTER_BROKER_SECURITY_PROTOCOL;
import static io.brook.server.config.NodeSettings.LISTENERS;
import static io.brook.server.config.NodeSettings.LISTENER_SECURITY_PROTOCOL_MAP;
import static io.brook.server.config.NodeSettings.NODE_ID;
import static io.brook.server.config.NodeSettings.PROCESS_ROLES;
import static io.brook.server.config.NodeSettings.UNSET_ID;

import io.brook.storage.cleaner.CleanerConfig;
import io.brook.storage.log.LogConfig;
import io.brook.storage.manager.LogManagerConfig;
import io.brook.storage.remote.RemoteLogManagerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * A broker's static configuration, read from a Kafka 4.x {@code server.properties} and meaning what
 * it means to Kafka: same names, types, defaults and validation rules ({@link BrokerConfigDef}
 * lists them).
 *
 * <p>Construction parses every value and checks the cross-config rules Kafka checks at start-up
 * (roles, node id, listeners, controller quorum, advertised addresses, timeouts that must be
 * ordered). Anything wrong is a {@link ConfigException} whose message names the config and says
 * what is allowed. Keys Brook does not define are not errors: {@link #unknownKeys()} lists them so
 * the server can log a warning for each; security keys are the exception, as an ignored one would
 * leave the node less protected than configured ({@link SupportedSecurity}).
 *
 * <p>Instances are immutable and safe to share between threads.
 */
public final class BrokerConfig {

  private final Map<String, String> originals;
  private final Map<String, Object> values;
  private final List<String> unknownKeys;
  private final int nodeId;
  private final Set<ProcessRole> processRoles;
  private final Map<String, SecurityProtocol> securityProtocolMap;
  private final List<String> controllerListenerNames;
  private final List<Endpoint> listeners;
  private final List<Endpoint> advertisedAsConfigured;
  private final Supplier<String> canonicalHostName;
  private volatile List<Endpoint> advertisedListeners;
  private final String interBrokerListenerName;
  private final List<Path> logDirs;
  private final LogConfig defaultLogConfig;

  private BrokerConfig(Map<String, String> props, Supplier<String> canonicalHostName) {
    this.originals = Collections.unmodifiableMap(new TreeMap<>(props));
    this.canonicalHostName = canonicalHostName;
    originals.forEach(
        (key, value) -> {
          if (value == null && BrokerConfigDef.isKnown(key)) {
            throw new ConfigException(key, null, "a value is required when the key is present");
          }
        });
    this.values = Collections.unmodifiableMap(new HashMap<>(BrokerConfigDef.shared().parse(props)));
    List<String> pluginPrefixes =
        List.of(
            string(TieredStorageSettings.MANAGER_IMPL_PREFIX),
            string(TieredStorageSettings.METADATA_MANAGER_IMPL_PREFIX));
    this.unknownKeys =
        originals.keySet().stream()
            .filter(k -> !BrokerConfigDef.isKnown(k))
            .filter(k -> !SupportedSecurity.isSupportedPerListenerKey(k))
            .filter(k -> pluginPrefixes.stream().noneMatch(k::startsWith))
            .toList();
    this.processRoles = parseProcessRoles();
    this.nodeId = resolveNodeId();
    this.controllerListenerNames =
        Listeners.csv(string(CONTROLLER_LISTENER_NAMES)).stream()
            .map(Listeners::normalise)
            .toList();
    if (controllerListenerNames.isEmpty()) {
      throw new ConfigException(
          CONTROLLER_LISTENER_NAMES,
          originals.get(CONTROLLER_LISTENER_NAMES),
          "required in KRaft mode: name the listener(s) the controllers use");
    }
    this.securityProtocolMap = effectiveSecurityProtocolMap();
    this.listeners =
        Listeners.parseEndpoints(LISTENERS, string(LISTENERS), securityProtocolMap::get, true);
    this.advertisedAsConfigured = parseAdvertisedListeners();
    this.interBrokerListenerName = resolveInterBrokerListenerName();
    this.logDirs = resolveLogDirs();
    this.defaultLogConfig =
        BrokerLogDefaults.derive(this::value).toBuilder()
            .maxInflatedBytesFactor((Integer) value(StorageSettings.MAX_INFLATED_BYTES_FACTOR))
            .build();
    BrokerConfigRules.check(this);
  }

  /**
   * Reads a {@code server.properties} file as Kafka does, with {@link
   * Properties#load(InputStream)}: ISO-8859-1, other characters written as backslash-u escapes.
   *
   * @throws IOException if the file cannot be read.
   * @throws ConfigException if a value is invalid.
   */
  public static BrokerConfig load(Path propertiesFile) throws IOException {
    Properties props = new Properties();
    try (InputStream in = Files.newInputStream(propertiesFile)) {
      props.load(in);
    }
    return from(props);
  }

  /** The config of {@code props}; a {@link ConfigException} names an invalid value. */
  public static BrokerConfig from(Properties props) {
    Map<String, String> map = new LinkedHashMap<>();
    props.forEach((k, v) -> map.put(String.valueOf(k), v == null ? null : String.valueOf(v)));
    return from(map);
  }

  /** The config of {@code props}; a {@link ConfigException} names an invalid value. */
  public static BrokerConfig from(Map<String, String> props) {
    return from(props, BrokerConfig::localCanonicalHostName);
  }

  /** As {@link #from(Map)}, resolving empty advertised hosts with {@code canonicalHostName}. */
  static BrokerConfig from(Map<String, String> props, Supplier<String> canonicalHostName) {
    Objects.requireNonNull(props, "props");
    return new BrokerConfig(props, canonicalHostName);
  }

  /**
   * The single-node configuration {@code bin/brook dev} runs: node 1 as broker and controller,
   * clients on localhost:9092, the controller on localhost:9093, data under {@code dataDir}, and
   * internal topics with one replica so that one node is enough.
   */
  /** Where {@code brook dev} serves /metrics, /health and /ready. */
  public static final String DEV_ADMIN_LISTENER = "http://localhost:9644";

  /** Where {@code brook dev} serves the HTTP API (/v1). */
  public static final String DEV_HTTP_LISTENER = "http://localhost:8082";

  /** The ports of {@link #DEV_ADMIN_LISTENER} and {@link #DEV_HTTP_LISTENER}. */
  public static final int DEV_ADMIN_PORT = 9644;

  public static final int DEV_HTTP_PORT = 8082;

  private static boolean portFree(int port) {
    try (java.net.ServerSocket probe = new java.net.ServerSocket(port)) {
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  public static BrokerConfig devDefaults(Path dataDir) {
    return devDefaults(dataDir, 9092, null);
  }

  /**
   * {@link #devDefaults(Path)} with clients on {@code port} and the controller on {@code port + 1}.
   * With an {@code advertisedHost} the client listener binds every interface and is advertised
   * under that host, so other machines can reach it.
   */
  public static BrokerConfig devDefaults(Path dataDir, int port, String advertisedHost) {
    return devDefaults(dataDir, port, advertisedHost, DEV_ADMIN_PORT, DEV_HTTP_PORT);
  }

  /**
   * {@link #devDefaults(Path, int, String)} with the admin listener on {@code adminPort} and the
   * HTTP API on {@code httpPort}: each default port ({@value #DEV_ADMIN_PORT}, {@value
   * #DEV_HTTP_PORT}) is used only when free, another port always, 0 turns the listener off.
   */
  public static BrokerConfig devDefaults(
      Path dataDir, int port, String advertisedHost, int adminPort, int httpPort) {
    if (port < 1 || port > 65534) {
      throw new IllegalArgumentException("port must be between 1 and 65534, not " + port);
    }
    int controllerPort = port + 1;
    Map<String, String> props = new LinkedHashMap<>();
    props.put(NODE_ID, "1");
    props.put(PROCESS_ROLES, "broker,controller");
    String clientHost = advertisedHost == null ? "localhost" : "0.0.0.0";
    props.put(
        LISTENERS,
        "PLAINTEXT://" + clientHost + ":" + port + ",CONTROLLER://localhost:" + controllerPort);
    if (advertisedHost != null) {
      props.put(ADVERTISED_LISTENERS, "PLAINTEXT://" + advertisedHost + ":" + port);
    }
    props.put(CONTROLLER_LISTENER_NAMES, "CONTROLLER");
    props.put(NodeSettings.QUORUM_VOTERS, "1@localhost:" + controllerPort);
    props.put(StorageSettings.LOG_DIRS, dataDir.toAbsolutePath().toString());
    props.put(GroupSettings.OFFSETS_TOPIC_REPLICATION_FACTOR, "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put(GroupSettings.GROUP_INITIAL_REBALANCE_DELAY_MS, "0");
    if (adminPort > 0 && (adminPort != DEV_ADMIN_PORT || portFree(adminPort))) {
      props.put(AdminSettings.ADMIN_LISTENER, "http://localhost:" + adminPort);
    }
    if (httpPort > 0 && (httpPort != DEV_HTTP_PORT || portFree(httpPort))) {
      props.put(HttpSettings.HTTP_LISTENER, "http://localhost:" + httpPort);
    }
    return from(props);
  }

  // ---- identity and listeners ----

  /** {@code node.id} (or its older synonym {@code broker.id}); always set and non-negative. */
  public int nodeId() {
    return nodeId;
  }

  /** {@code process.roles}; never empty. */
  public Set<ProcessRole> processRoles() {
    return processRoles;
  }

  public boolean isBroker() {
    return processRoles.contains(ProcessRole.BROKER);
  }

  public boolean isController() {
    return processRoles.contains(ProcessRole.CONTROLLER);
  }

  /** {@code broker.rack}, if set. */
  public Optional<String> brokerRack() {
    return Optional.ofNullable(string(NodeSettings.BROKER_RACK));
  }

  /** {@code listeners}: what to bind. An empty host means every interface. */
  public List<Endpoint> listeners() {
    return listeners;
  }

  /**
   * {@code advertised.listeners}, or {@code listeners} when unset, with empty hosts replaced by
   * this machine's canonical host name as Kafka does. Includes controller listeners. The host name
   * is looked up on the first call (it may need DNS), not when the config is read.
   */
  public List<Endpoint> advertisedListeners() {
    List<Endpoint> resolved = advertisedListeners;
    if (resolved == null) {
      resolved = resolveHosts(advertisedAsConfigured, canonicalHostName);
      advertisedListeners = resolved;
    }
    return resolved;
  }

  /** The advertised listeners clients may use: all but the controller listeners. */
  public List<Endpoint> advertisedBrokerListeners() {
    return withoutControllerListeners(advertisedListeners());
  }

  /** The advertised listeners as configured, empty hosts not yet resolved. */
  List<Endpoint> advertisedAsConfigured() {
    return advertisedAsConfigured;
  }

  List<Endpoint> withoutControllerListeners(List<Endpoint> endpoints) {
    return endpoints.stream()
        .filter(e -> !controllerListenerNames.contains(e.listenerName()))
        .toList();
  }

  /**
   * {@code listener.security.protocol.map}, listener names upper-cased. As in Kafka's KRaft mode,
   * when the map is not configured, controller listener names are added as PLAINTEXT unless a
   * listener is named after SSL or SASL.
   */
  public Map<String, SecurityProtocol> securityProtocolMap() {
    return securityProtocolMap;
  }

  /** {@code controller.listener.names}, upper-cased; the first is what brokers use. */
  public List<String> controllerListenerNames() {
    return controllerListenerNames;
  }

  /** {@code inter.broker.listener.name}, or the listener of the inter-broker protocol. */
  public String interBrokerListenerName() {
    return interBrokerListenerName;
  }

  /** {@code controller.quorum.voters} entries ({@code id@host:port}). */
  public List<String> controllerQuorumVoters() {
    return list(NodeSettings.QUORUM_VOTERS);
  }

  /** {@code controller.quorum.bootstrap.servers} entries ({@code host:port}). */
  public List<String> controllerQuorumBootstrapServers() {
    return list(NodeSettings.QUORUM_BOOTSTRAP_SERVERS);
  }

  // ---- storage and topics ----

  /** {@code log.dirs}, or {@code log.dir} when unset; never empty. */
  public List<Path> logDirs() {
    return logDirs;
  }

  /** {@code metadata.log.dir}, or the first of {@link #logDirs()}. */
  public Path metadataLogDir() {
    String dir = string(NodeSettings.METADATA_LOG_DIR);
    return dir == null ? logDirs.get(0) : Path.of(dir);
  }

  public int numPartitions() {
    return (Integer) value(StorageSettings.NUM_PARTITIONS);
  }

  public short defaultReplicationFactor() {
    return ((Integer) value(ReplicationSettings.DEFAULT_REPLICATION_FACTOR)).shortValue();
  }

  public boolean autoCreateTopicsEnable() {
    return (Boolean) value(StorageSettings.AUTO_CREATE_TOPICS_ENABLE);
  }

  public boolean deleteTopicEnable() {
    return (Boolean) value(StorageSettings.DELETE_TOPIC_ENABLE);
  }

  /**
   * The topic-level defaults this broker's {@code log.*} (and other synonym) settings give, as
   * Kafka derives them: {@code log.retention.ms} before {@code log.retention.minutes} before {@code
   * log.retention.hours}, {@code log.roll.ms} before {@code log.roll.hours}, and so on ({@code
   * io.brook.storage.log.TopicConfigs#brokerSynonyms}).
   */
  public LogConfig defaultLogConfig() {
    return defaultLogConfig;
  }

  /** The settings of the storage engine's {@code LogManager}. */
  public LogManagerConfig logManagerConfig() {
    return new LogManagerConfig(
            logDirs,
            numRecoveryThreadsPerDataDir(),
            logFlushSchedulerIntervalMs(),
            logFlushOffsetCheckpointIntervalMs(),
            logFlushStartOffsetCheckpointIntervalMs(),
            producerIdExpirationMs(),
            producerIdExpirationCheckIntervalMs())
        .withRetentionCheckIntervalMs(
            (Long) value(RetentionSettings.LOG_RETENTION_CHECK_INTERVAL_MS))
        .withCleaner(cleanerConfig())
        .withMaxOpenFiles(maxOpenFiles());
  }

  /**
   * {@code brook.admin.listener}: where the admin HTTP listener binds, or null for none (host and
   * port of the URL).
   */
  public java.net.URI adminListener() {
    return AdminSettings.parse(
        AdminSettings.ADMIN_LISTENER, valueString(AdminSettings.ADMIN_LISTENER));
  }

  /** {@code brook.metrics.lag.interval.ms}: how often the consumer-group lag metrics refresh. */
  public long lagMetricsIntervalMs() {
    return (Long) value(AdminSettings.LAG_INTERVAL_MS);
  }

  /** {@code brook.metrics.lag.max.series}: group-partitions with their own lag metrics. */
  public int lagMetricsMaxSeries() {
    return (Integer) value(AdminSettings.LAG_MAX_SERIES);
  }

  /** {@code brook.http.*}: the HTTP API's listener, authentication and bounds. */
  public HttpApiConfig httpApi() {
    return HttpSettings.values(this);
  }

  /** {@code brook.log.max.open.files}: the bound on open segment files across all partitions. */
  public int maxOpenFiles() {
    return (Integer) value(StorageSettings.MAX_OPEN_FILES);
  }

  /** The log cleaner's settings ({@code log.cleaner.*}). */
  public CleanerConfig cleanerConfig() {
    return new CleanerConfig(
        (Boolean) value(RetentionSettings.LOG_CLEANER_ENABLE),
        (Integer) value(RetentionSettings.LOG_CLEANER_THREADS),
        (Long) value(RetentionSettings.LOG_CLEANER_DEDUPE_BUFFER_SIZE),
        (Integer) value(RetentionSettings.LOG_CLEANER_IO_BUFFER_SIZE),
        (Double) value(RetentionSettings.LOG_CLEANER_IO_BUFFER_LOAD_FACTOR),
        (Double) value(RetentionSettings.LOG_CLEANER_IO_MAX_BYTES_PER_SECOND),
        (Long) value(RetentionSettings.LOG_CLEANER_BACKOFF_MS));
  }

  public int numRecoveryThreadsPerDataDir() {
    return (Integer) value(StorageSettings.NUM_RECOVERY_THREADS_PER_DATA_DIR);
  }

  /** {@code log.flush.scheduler.interval.ms}: how often logs are checked against flush.ms. */
  public long logFlushSchedulerIntervalMs() {
    return (Long) value(StorageSettings.LOG_FLUSH_SCHEDULER_INTERVAL_MS);
  }

  /** {@code log.flush.offset.checkpoint.interval.ms}: recovery-point checkpoints. */
  public long logFlushOffsetCheckpointIntervalMs() {
    return (Integer) value(StorageSettings.LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS);
  }

  /** {@code log.flush.start.offset.checkpoint.interval.ms}: log-start-offset checkpoints. */
  public long logFlushStartOffsetCheckpointIntervalMs() {
    return (Integer) value(StorageSettings.LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS);
  }

  /** {@code add.partitions.to.txn.retry.backoff.ms}. */
  public long addPartitionsToTxnRetryBackoffMs() {
    return (Integer) value(TransactionSettings.ADD_PARTITIONS_TO_TXN_RETRY_BACKOFF_MS);
  }

  /**
   * How long a leader keeps asking a coordinator that answers CONCURRENT_TRANSACTIONS: {@code
   * add.partitions.to.txn.retry.backoff.max.ms}, at most {@code request.timeout.ms}, as Kafka.
   */
  public long addPartitionsToTxnRetryTimeoutMs() {
    return Math.min(
        (Integer) value(TransactionSettings.ADD_PARTITIONS_TO_TXN_RETRY_BACKOFF_MAX_MS),
        (Integer) value("request.timeout.ms"));
  }

  public long producerIdExpirationMs() {
    return (Integer) value(TransactionSettings.PRODUCER_ID_EXPIRATION_MS);
  }

  public long producerIdExpirationCheckIntervalMs() {
    return (Integer) value(TransactionSettings.PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS);
  }

  // ---- network ----

  public int numNetworkThreads() {
    return (Integer) value(NetworkSettings.NUM_NETWORK_THREADS);
  }

  public int numIoThreads() {
    return (Integer) value(NetworkSettings.NUM_IO_THREADS);
  }

  /** {@code fetch.max.bytes}: the largest response to a consumer's Fetch. */
  public int fetchMaxBytes() {
    return (Integer) value("fetch.max.bytes");
  }

  /** {@code quota.window.num}: samples a client quota is measured over. */
  public int quotaWindowNum() {
    return (Integer) value("quota.window.num");
  }

  /** {@code quota.window.size.seconds}: the length of one client quota sample. */
  public int quotaWindowSizeSeconds() {
    return (Integer) value("quota.window.size.seconds");
  }

  /** {@code controller.quota.window.num}: samples the controller mutation quota's burst spans. */
  public int controllerQuotaWindowNum() {
    return (Integer) value("controller.quota.window.num");
  }

  /** {@code controller.quota.window.size.seconds}: the length of one such sample. */
  public int controllerQuotaWindowSizeSeconds() {
    return (Integer) value("controller.quota.window.size.seconds");
  }

  /** {@code replication.quota.window.num}: samples a replication throttle is measured over. */
  public int replicationQuotaWindowNum() {
    return (Integer) value("replication.quota.window.num");
  }

  /** {@code replication.quota.window.size.seconds}: the length of one such sample. */
  public int replicationQuotaWindowSizeSeconds() {
    return (Integer) value("replication.quota.window.size.seconds");
  }

  /** {@code brook.quota.fair.share.bytes.per.second}: the fair share's budget, 0 for off. */
  public long fairShareBytesPerSecond() {
    return (Long) value("brook.quota.fair.share.bytes.per.second");
  }

  /** {@code max.incremental.fetch.session.cache.slots}: the most fetch sessions kept. */
  public int maxIncrementalFetchSessionCacheSlots() {
    return (Integer) value("max.incremental.fetch.session.cache.slots");
  }

  /** {@code brook.min.incremental.fetch.session.eviction.ms}: a session's minimum unused time. */
  public long minIncrementalFetchSessionEvictionMs() {
    return (Long) value("brook.min.incremental.fetch.session.eviction.ms");
  }

  public int queuedMaxRequests() {
    return (Integer) value(NetworkSettings.QUEUED_MAX_REQUESTS);
  }

  /** {@code queued.max.request.bytes}: the request-memory budget; -1 derives it from the JVM. */
  public long queuedMaxRequestBytes() {
    return (Long) value(NetworkSettings.QUEUED_MAX_REQUEST_BYTES);
  }

  /** {@code brook.queued.max.request.bytes.per.connection}: request bytes in flight per socket. */
  public long queuedMaxRequestBytesPerConnection() {
    return (Long) value(NetworkSettings.QUEUED_MAX_REQUEST_BYTES_PER_CONNECTION);
  }

  /** {@code brook.request.receive.timeout.ms}: how long one request frame may take to arrive. */
  public long requestReceiveTimeoutMs() {
    return (Long) value(NetworkSettings.REQUEST_RECEIVE_TIMEOUT_MS);
  }

  /** {@code socket.request.max.bytes}: the largest request frame the broker reads. */
  public int socketRequestMaxBytes() {
    return (Integer) value(NetworkSettings.SOCKET_REQUEST_MAX_BYTES);
  }

  /** {@code socket.send.buffer.bytes}; -1 means the operating system's default. */
  public int socketSendBufferBytes() {
    return (Integer) value(NetworkSettings.SOCKET_SEND_BUFFER_BYTES);
  }

  /** {@code socket.receive.buffer.bytes}; -1 means the operating system's default. */
  public int socketReceiveBufferBytes() {
    return (Integer) value(NetworkSettings.SOCKET_RECEIVE_BUFFER_BYTES);
  }

  public int socketListenBacklogSize() {
    return (Integer) value(NetworkSettings.SOCKET_LISTEN_BACKLOG_SIZE);
  }

  public int maxConnections() {
    return (Integer) value(NetworkSettings.MAX_CONNECTIONS);
  }

  public int maxConnectionsPerIp() {
    return (Integer) value(NetworkSettings.MAX_CONNECTIONS_PER_IP);
  }

  /**
   * {@code max.connection.creation.rate} and the per-listener {@code listener.name.<l>.max.
   * connections} and {@code .max.connection.creation.rate}, with the inter-broker listener.
   */
  public io.brook.protocol.network.AcceptLimits acceptLimits() {
    return ListenerConnectionLimits.of(this);
  }

  public long connectionsMaxIdleMs() {
    return (Long) value(NetworkSettings.CONNECTIONS_MAX_IDLE_MS);
  }

  // ---- groups and transactions ----

  public short offsetsTopicReplicationFactor() {
    return (Short) value(GroupSettings.OFFSETS_TOPIC_REPLICATION_FACTOR);
  }

  public int offsetsTopicNumPartitions() {
    return (Integer) value(GroupSettings.OFFSETS_TOPIC_NUM_PARTITIONS);
  }

  public int groupInitialRebalanceDelayMs() {
    return (Integer) value(GroupSettings.GROUP_INITIAL_REBALANCE_DELAY_MS);
  }

  // ---- authorization ----

  /** Whether ACLs are enforced: {@code authorizer.class.name} names Kafka's StandardAuthorizer. */
  public boolean authorizerEnabled() {
    return !((String) value(AuthorizerSettings.AUTHORIZER_CLASS_NAME)).isBlank();
  }

  public List<org.apache.kafka.common.security.auth.KafkaPrincipal> superUsers() {
    return AuthorizerSettings.superUsers(
        AuthorizerSettings.SUPER_USERS, (String) value(AuthorizerSettings.SUPER_USERS));
  }

  public boolean allowEveryoneIfNoAclFound() {
    return (Boolean) value(AuthorizerSettings.ALLOW_EVERYONE_IF_NO_ACL_FOUND);
  }

  // ---- tiered storage ----

  /** {@code remote.log.storage.system.enable}: whether this broker tiers topics that opt in. */
  public boolean remoteLogStorageSystemEnable() {
    return (Boolean) value(TieredStorageSettings.SYSTEM_ENABLE);
  }

  /**
   * The remote log manager's settings. Fetched remote indexes and chunks of remote logs are cached
   * in folders next to the first log dir ({@code <log dir>-remote-index-cache}, {@code <log
   * dir>-remote-chunk-cache}): inside it the log manager would take them for partitions.
   */
  public RemoteLogManagerConfig remoteLogManagerConfig() {
    Path first = logDirs.get(0).toAbsolutePath();
    return new RemoteLogManagerConfig(
        (Long) value(TieredStorageSettings.TASK_INTERVAL_MS),
        (Integer) value(TieredStorageSettings.COPIER_THREADS),
        (Integer) value(TieredStorageSettings.READER_THREADS),
        (Integer) value(TieredStorageSettings.READER_MAX_PENDING),
        first.resolveSibling(first.getFileName() + "-remote-index-cache"),
        (Long) value(TieredStorageSettings.INDEX_CACHE_BYTES),
        (Integer) value(TieredStorageSettings.FETCH_MAX_WAIT_MS),
        first.resolveSibling(first.getFileName() + "-remote-chunk-cache"),
        (Long) value(TieredStorageSettings.CHUNK_CACHE_BYTES),
        (Integer) value(TieredStorageSettings.CHUNK_BYTES));
  }

  /** {@code remote.log.storage.manager.class.name}; empty means the local-filesystem store. */
  public Optional<String> remoteStorageManagerClassName() {
    return Optional.ofNullable((String) value(TieredStorageSettings.MANAGER_CLASS_NAME));
  }

  /**
   * The remote storage plugin's settings: the configs starting with {@code
   * remote.log.storage.manager.impl.prefix} ({@code rsm.config.}), prefix removed. Without a {@code
   * dir}, the local-filesystem store uses {@code <log dir>-remote-storage} next to the first log
   * dir (brokers sharing one store must all name it).
   */
  public Map<String, String> remoteStorageManagerSettings() {
    String prefix = (String) value(TieredStorageSettings.MANAGER_IMPL_PREFIX);
    Map<String, String> out = new TreeMap<>();
    originals.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            out.put(k.substring(prefix.length()), v);
          }
        });
    Path first = logDirs.get(0).toAbsolutePath();
    out.putIfAbsent(
        "dir", first.resolveSibling(first.getFileName() + "-remote-storage").toString());
    return out;
  }

  // ---- generic access, for DescribeConfigs ----

  /**
   * The parsed value of a broker config: Integer, Long, Short, Double, Boolean, String or
   * List&lt;String&gt; as its {@link BrokerConfigDef#type type} says; null if it has no default and
   * is not set.
   *
   * @throws IllegalArgumentException if {@code name} is not a broker config.
   */
  public Object value(String name) {
    if (!BrokerConfigDef.isKnown(name)) {
      throw new IllegalArgumentException("Not a broker config: " + name);
    }
    return values.get(name);
  }

  /** The value as DescribeConfigs prints it, or null if unset. */
  public String valueString(String name) {
    Object value = value(name);
    return value == null ? null : ConfigDef.convertToString(value, BrokerConfigDef.type(name));
  }

  /** The value exactly as configured, or null if the config was not set. */
  public String originalString(String name) {
    return originals.get(name);
  }

  /** Whether the config was set explicitly (as opposed to taking Kafka's default). */
  public boolean isSet(String name) {
    return originals.containsKey(name);
  }

  /** Every configured key and value, known or not, in alphabetical order. */
  public Map<String, String> originals() {
    return originals;
  }

  /**
   * Configured keys Brook does not define, alphabetically; the server warns about each. Keys under
   * the prefixes whose configs Kafka passes to its tiered-storage plugins ({@code
   * remote.log.storage.manager.impl.prefix}, {@code rsm.config.}; {@code
   * remote.log.metadata.manager.impl.prefix}, {@code rlmm.config.}) are not unknown: the first go
   * to the remote store ({@link #remoteStorageManagerSettings}), the second are accepted and
   * unused, as Brook keeps remote metadata in a manifest.
   */
  public List<String> unknownKeys() {
    return unknownKeys;
  }

  @Override
  public String toString() {
    return "BrokerConfig{nodeId="
        + nodeId
        + ", processRoles="
        + processRoles
        + ", listeners="
        + listeners
        + ", logDirs="
        + logDirs
        + "}";
  }

  // ---- construction ----

  String string(String name) {
    return (String) value(name);
  }

  @SuppressWarnings("unchecked")
  List<String> list(String name) {
    Object value = value(name);
    return value == null ? List.of() : List.copyOf((List<String>) value);
  }

  private Set<ProcessRole> parseProcessRoles() {
    List<String> roles = list(PROCESS_ROLES);
    if (roles.isEmpty()) {
      throw new ConfigException(
          PROCESS_ROLES,
          originals.get(PROCESS_ROLES),
          "required: broker, controller, or broker,controller (Kafka 4 runs only in KRaft mode)");
    }
    EnumSet<ProcessRole> set = EnumSet.noneOf(ProcessRole.class);
    roles.forEach(r -> set.add(ProcessRole.forConfigValue(r)));
    return Collections.unmodifiableSet(set);
  }

  private int resolveNodeId() {
    int node = (Integer) value(NODE_ID);
    int broker = (Integer) value(BROKER_ID);
    if (node != UNSET_ID && broker != UNSET_ID && node != broker) {
      throw new ConfigException(
          NODE_ID, node, "must equal broker.id (" + broker + ") when both are set");
    }
    int id = node != UNSET_ID ? node : broker;
    if (id < 0) {
      throw new ConfigException(
          NODE_ID,
          originals.getOrDefault(NODE_ID, originals.get(BROKER_ID)),
          "required when process.roles is set; must be a non-negative integer");
    }
    return id;
  }

  private Map<String, SecurityProtocol> effectiveSecurityProtocolMap() {
    Map<String, SecurityProtocol> map =
        Listeners.parseSecurityProtocolMap(
            LISTENER_SECURITY_PROTOCOL_MAP, string(LISTENER_SECURITY_PROTOCOL_MAP));
    if (!isSet(LISTENER_SECURITY_PROTOCOL_MAP)) {
      // KRaft convenience (as in Kafka): with the default map, controller listeners speak
      // PLAINTEXT unless something is named after a secure protocol.
      List<String> names = new ArrayList<>(controllerListenerNames);
      Listeners.csv(string(LISTENERS)).forEach(e -> names.add(Listeners.listenerNameOf(e)));
      boolean secureNamed =
          names.stream()
              .anyMatch(
                  n ->
                      n.equals(SecurityProtocol.SSL.name)
                          || n.equals(SecurityProtocol.SASL_SSL.name)
                          || n.equals(SecurityProtocol.SASL_PLAINTEXT.name));
      if (!secureNamed) {
        controllerListenerNames.forEach(n -> map.putIfAbsent(n, SecurityProtocol.PLAINTEXT));
      }
    }
    return Collections.unmodifiableMap(map);
  }

  private List<Endpoint> parseAdvertisedListeners() {
    boolean configured = string(ADVERTISED_LISTENERS) != null;
    List<Endpoint> advertised =
        configured
            ? Listeners.parseEndpoints(
                ADVERTISED_LISTENERS, string(ADVERTISED_LISTENERS), securityProtocolMap::get, false)
            : listeners;
    String sourceKey = configured ? ADVERTISED_LISTENERS : LISTENERS;
    for (Endpoint e : advertised) {
      if (e.host().equals("0.0.0.0")) {
        throw new ConfigException(
            sourceKey,
            string(sourceKey),
            "0.0.0.0 cannot be advertised; "
                + (configured
                    ? "use a routable address or host name"
                    : "set advertised.listeners to a routable address"));
      }
    }
    return advertised;
  }

  private static List<Endpoint> resolveHosts(
      List<Endpoint> endpoints, Supplier<String> canonicalHostName) {
    List<Endpoint> resolved = new ArrayList<>();
    String hostName = null;
    for (Endpoint e : endpoints) {
      if (e.wildcardHost()) {
        if (hostName == null) {
          hostName = canonicalHostName.get();
        }
        e = new Endpoint(e.listenerName(), hostName, e.port(), e.securityProtocol());
      }
      resolved.add(e);
    }
    return List.copyOf(resolved);
  }

  private String resolveInterBrokerListenerName() {
    String name = string(INTER_BROKER_LISTENER_NAME);
    if (name == null) {
      return SecurityProtocol.forName(string(INTER_BROKER_SECURITY_PROTOCOL)).name;
    }
    if (isSet(INTER_BROKER_SECURITY_PROTOCOL)) {
      throw new ConfigException(
          INTER_BROKER_LISTENER_NAME,
          name,
          "set either inter.broker.listener.name or security.inter.broker.protocol, not both");
    }
    String normalised = Listeners.normalise(name);
    if (!securityProtocolMap.containsKey(normalised)) {
      throw new ConfigException(
          INTER_BROKER_LISTENER_NAME,
          name,
          "listener " + normalised + " is not in listener.security.protocol.map");
    }
    return normalised;
  }

  private List<Path> resolveLogDirs() {
    List<String> dirs = list(StorageSettings.LOG_DIRS);
    if (dirs.isEmpty()) {
      dirs = list(StorageSettings.LOG_DIR);
    }
    return dirs.stream().map(Path::of).toList();
  }

  private static String localCanonicalHostName() {
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      // Kafka would fail to register; a single-node Brook is still usable on the loopback name.
      return "localhost";
    }
  }
}
