package io.brook.server.cluster;

import io.brook.controller.ControllerSettings;
import io.brook.controller.quorum.ClusterQuorum;
import io.brook.controller.quorum.QuorumSettings;
import io.brook.controller.quorum.RaftMetadataObserver;
import io.brook.controller.quorum.RaftMetadataQuorum;
import io.brook.protocol.tls.ReloadingTlsManagers;
import io.brook.protocol.tls.SslEngines;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Endpoint;
import io.brook.server.config.ListenerTls;
import io.brook.storage.manager.LogManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * The quorum and broker-lifecycle settings of a node, by Kafka's names.
 *
 * @param voters {@code controller.quorum.voters}: the initial voters; empty with {@code
 *     controller.quorum.bootstrap.servers}
 * @param heartbeatIntervalMs {@code broker.heartbeat.interval.ms}
 * @param sessionTimeoutMs {@code broker.session.timeout.ms}
 * @param registrationTimeoutMs {@code initial.broker.registration.timeout.ms}
 * @param electionTimeoutMs {@code controller.quorum.election.timeout.ms}
 * @param requestTimeoutMs {@code controller.quorum.request.timeout.ms}
 * @param autoLeaderRebalance {@code auto.leader.rebalance.enable}
 * @param leaderImbalanceCheckIntervalMs {@code leader.imbalance.check.interval.seconds} in ms
 * @param livenessProbe {@code brook.broker.liveness.probe.enable}
 * @param livenessProbeGraceMs {@code brook.broker.liveness.probe.grace.ms}
 */
public record ClusterSettings(
    Map<Integer, InetSocketAddress> voters,
    int heartbeatIntervalMs,
    int sessionTimeoutMs,
    int registrationTimeoutMs,
    int electionTimeoutMs,
    int requestTimeoutMs,
    boolean autoLeaderRebalance,
    long leaderImbalanceCheckIntervalMs,
    boolean livenessProbe,
    int livenessProbeGraceMs) {
  /** Entries between Raft snapshots; each entry is one controller operation. */
  static final long SNAPSHOT_EVERY_ENTRIES = 20_000;

  public static ClusterSettings of(BrokerConfig config) {
    return new ClusterSettings(
        QuorumSettings.parseVoters(config.controllerQuorumVoters()),
        intValue(config, "broker.heartbeat.interval.ms"),
        intValue(config, "broker.session.timeout.ms"),
        intValue(config, "initial.broker.registration.timeout.ms"),
        intValue(config, "controller.quorum.election.timeout.ms"),
        intValue(config, "controller.quorum.request.timeout.ms"),
        (Boolean) config.value("auto.leader.rebalance.enable"),
        ((Number) config.value("leader.imbalance.check.interval.seconds")).longValue() * 1000,
        (Boolean) config.value("brook.broker.liveness.probe.enable"),
        intValue(config, "brook.broker.liveness.probe.grace.ms"));
  }

  private static int intValue(BrokerConfig config, String name) {
    return (Integer) config.value(name);
  }

  /** The controller side's part of these settings. */
  public ControllerSettings controllerSettings(BrokerConfig config) {
    return new ControllerSettings(
        config.nodeId(),
        config.controllerListenerNames().get(0),
        sessionTimeoutMs,
        autoLeaderRebalance,
        leaderImbalanceCheckIntervalMs,
        livenessProbe,
        livenessProbeGraceMs);
  }

  /**
   * This node's part of the quorum, storing under {@code metadata.log.dir}.
   *
   * @param directoryId the {@code directory.id} of {@code metadata.log.dir}: a controller's
   *     identity as a voter, with its node id (KIP-853)
   */
  public QuorumSettings quorumSettings(BrokerConfig config, Uuid directoryId) {
    return new QuorumSettings(
            config.nodeId(),
            voters,
            config.metadataLogDir().resolve(LogManager.METADATA_DIRECTORY),
            Duration.ofMillis(electionTimeoutMs),
            Duration.ofMillis(requestTimeoutMs),
            SNAPSHOT_EVERY_ENTRIES,
            QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES)
        .withDynamicQuorum(
            directoryId,
            QuorumSettings.parseBootstrapServers(config.controllerQuorumBootstrapServers()),
            config.isController() ? controllerEndpoint(config) : null)
        .withTls(quorumTls(config));
  }

  /**
   * Mutual TLS for the quorum when the controller listener speaks SSL, with that listener's {@code
   * ssl.*} settings ({@code listener.name.controller.ssl.*} over the global ones): the node's
   * keystore is its certificate both as a Raft server and as a client, its truststore what it
   * accepts. Ratis builds its gRPC TLS contexts once, from these managers; they follow the store
   * files ({@link ReloadingTlsManagers}, checked at most every {@code
   * brook.ssl.store.reload.interval.ms}), so a rotated certificate serves the next quorum
   * connection without a restart, as on the Kafka listeners.
   */
  private static QuorumSettings.Tls quorumTls(BrokerConfig config) {
    String listener = config.controllerListenerNames().get(0);
    SecurityProtocol protocol = config.securityProtocolMap().get(listener);
    if (protocol != SecurityProtocol.SSL) {
      return null;
    }
    // Not closed: the quorum uses the stores for as long as the node runs.
    SslEngines engines = SslEngines.createServer(listener, ListenerTls.settings(config, listener));
    ReloadingTlsManagers managers =
        new ReloadingTlsManagers(engines, ListenerTls.storeReloadIntervalMs(config));
    return new QuorumSettings.Tls(managers.keyManager(), managers.trustManager());
  }

  /**
   * Where the other controllers reach this one: its entry in {@code controller.quorum.voters}, else
   * its first controller listener as advertised (as listed in {@code listeners} when {@code
   * advertised.listeners} leaves it out).
   */
  private InetSocketAddress controllerEndpoint(BrokerConfig config) {
    InetSocketAddress voter = voters.get(config.nodeId());
    if (voter != null) {
      return voter;
    }
    String name = config.controllerListenerNames().get(0);
    Endpoint endpoint =
        config.advertisedListeners().stream()
            .filter(e -> e.listenerName().equals(name))
            .findFirst()
            .or(
                () ->
                    config.listeners().stream()
                        .filter(e -> e.listenerName().equals(name))
                        .findFirst())
            .orElseThrow(() -> new IllegalStateException("no " + name + " listener"));
    return InetSocketAddress.createUnresolved(endpoint.host(), endpoint.port());
  }

  /**
   * Starts this node's part of the quorum: a voter (or an observer until added) on a controller, a
   * follower of the log on a broker-only node.
   */
  public ClusterQuorum startQuorum(BrokerConfig config, Uuid directoryId) throws IOException {
    QuorumSettings quorum = quorumSettings(config, directoryId);
    return config.isController()
        ? RaftMetadataQuorum.start(quorum)
        : RaftMetadataObserver.start(quorum);
  }
}
