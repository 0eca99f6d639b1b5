package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Type.BOOLEAN;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LIST;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

import java.util.Arrays;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/** Identity, KRaft roles and quorum, listeners and metadata log. */
final class NodeSettings {

  static final String PROCESS_ROLES = "process.roles";
  static final String NODE_ID = "node.id";
  static final String BROKER_ID = "broker.id";
  static final String BROKER_RACK = "broker.rack";
  static final String LISTENERS = "listeners";
  static final String ADVERTISED_LISTENERS = "advertised.listeners";
  static final String LISTENER_SECURITY_PROTOCOL_MAP = "listener.security.protocol.map";
  static final String INTER_BROKER_LISTENER_NAME = "inter.broker.listener.name";
  static final String INTER_BROKER_SECURITY_PROTOCOL = "security.inter.broker.protocol";
  static final String CONTROLLER_LISTENER_NAMES = "controller.listener.names";
  static final String QUORUM_VOTERS = "controller.quorum.voters";
  static final String QUORUM_BOOTSTRAP_SERVERS = "controller.quorum.bootstrap.servers";
  static final String METADATA_LOG_DIR = "metadata.log.dir";
  static final String LIVENESS_PROBE_ENABLE = "brook.broker.liveness.probe.enable";
  static final String LIVENESS_PROBE_GRACE_MS = "brook.broker.liveness.probe.grace.ms";

  /** {@code node.id} / {@code broker.id} value meaning "not set". */
  static final int UNSET_ID = -1;

  /** Kafka's default: a listener named after each security protocol, speaking that protocol. */
  static final String DEFAULT_SECURITY_PROTOCOL_MAP =
      Arrays.stream(SecurityProtocol.values())
          .map(p -> p.name + ":" + p.name)
          .collect(Collectors.joining(","));

  private NodeSettings() {}

  static void define(ConfigTable table) {
    String[] protocols = SecurityProtocol.names().toArray(new String[0]);
    table
        .section(ConfigArea.NODE)
        .uses(
            PROCESS_ROLES,
            LIST,
            "",
            ConfigDef.ValidList.in("broker", "controller"),
            HIGH,
            "Roles of this node: broker, controller, or both (combined mode). Required.")
        .uses(
            NODE_ID,
            INT,
            UNSET_ID,
            ANY,
            HIGH,
            "Unique id of this node in the cluster. Required; broker.id is accepted as a synonym.")
        .uses(
            BROKER_ID,
            INT,
            UNSET_ID,
            ANY,
            HIGH,
            "Older name for node.id; if both are set they must be equal.")
        .uses(
            BROKER_RACK,
            STRING,
            null,
            ANY,
            MEDIUM,
            "Rack or availability zone of this broker, used to spread replicas.")
        .uses(
            LISTENERS,
            STRING,
            "PLAINTEXT://:9092",
            ANY,
            HIGH,
            "Comma-separated NAME://host:port addresses to listen on; an empty host binds every"
                + " interface.")
        .uses(
            ADVERTISED_LISTENERS,
            STRING,
            null,
            ANY,
            HIGH,
            "Addresses given to clients and other nodes, if different from listeners; an empty"
                + " host is replaced by the canonical host name.")
        .uses(
            LISTENER_SECURITY_PROTOCOL_MAP,
            STRING,
            DEFAULT_SECURITY_PROTOCOL_MAP,
            ANY,
            LOW,
            "NAME:PROTOCOL pairs giving each listener name its security protocol.")
        .accepts(
            INTER_BROKER_LISTENER_NAME,
            STRING,
            null,
            ANY,
            MEDIUM,
            "Listener brokers use to reach each other; defaults to the one named after"
                + " security.inter.broker.protocol.")
        .accepts(
            INTER_BROKER_SECURITY_PROTOCOL,
            STRING,
            SecurityProtocol.PLAINTEXT.name,
            ConfigDef.ValidString.in(protocols),
            MEDIUM,
            "Security protocol between brokers when inter.broker.listener.name is not set.")
        .uses(
            CONTROLLER_LISTENER_NAMES,
            STRING,
            null,
            ANY,
            HIGH,
            "Comma-separated names of the listeners controllers use; required in KRaft mode.")
        .uses(
            QUORUM_VOTERS,
            LIST,
            "",
            Listeners.votersValidator(),
            HIGH,
            "The initial controller voters as id@host:port entries: the quorum a node with an"
                + " empty metadata log starts with; afterwards the voters in the log rule.")
        .uses(
            QUORUM_BOOTSTRAP_SERVERS,
            LIST,
            "",
            Listeners.hostPortListValidator(),
            HIGH,
            "host:port of controllers to find the quorum through, instead of"
                + " controller.quorum.voters; a controller started so follows as an observer"
                + " until added as a voter.")
        .uses(
            "controller.quorum.election.timeout.ms",
            INT,
            1_000,
            ANY,
            HIGH,
            "How long a voter waits without hearing from a leader before starting an election. Also"
                + " how long a leader that lost its majority waits before standing again, and how"
                + " often a node reopens its connections to a Raft peer silent for half of it (see"
                + " `docs/cluster.md`).")
        .accepts(
            "controller.quorum.fetch.timeout.ms",
            INT,
            2_000,
            ANY,
            HIGH,
            "How long without a successful fetch from the leader before a voter suspects it.")
        .accepts(
            "controller.quorum.election.backoff.max.ms",
            INT,
            1_000,
            ANY,
            HIGH,
            "Longest random back-off before retrying a failed election.")
        .accepts(
            "controller.quorum.append.linger.ms",
            INT,
            25,
            ANY,
            MEDIUM,
            "How long the quorum leader waits to batch metadata writes before flushing them.")
        .uses(
            "controller.quorum.request.timeout.ms",
            INT,
            2_000,
            ANY,
            MEDIUM,
            "Timeout of a request between quorum members. A broker abandons its own controller"
                + " calls (heartbeat, registration, ISR change) unanswered after this or half of"
                + " broker.session.timeout.ms, whichever is longer, and a broker-only node a"
                + " metadata fetch unanswered after this plus the 500 ms long-poll, and sends the"
                + " next.")
        .accepts(
            "controller.quorum.retry.backoff.ms",
            INT,
            20,
            ANY,
            LOW,
            "Pause before retrying a failed request between quorum members.")
        .uses(
            "broker.heartbeat.interval.ms",
            INT,
            2_000,
            ANY,
            MEDIUM,
            "Interval between a broker's heartbeats to the active controller.")
        .uses(
            "broker.session.timeout.ms",
            INT,
            9_000,
            ANY,
            MEDIUM,
            "How long a broker stays registered without heartbeats before it is fenced.")
        .uses(
            LIVENESS_PROBE_ENABLE,
            BOOLEAN,
            true,
            ANY,
            MEDIUM,
            "Brook only: each controller holds an idle TCP connection to each unfenced broker"
                + " and the active one fences a broker whose connection closed and could not be made"
                + " again within brook.broker.liveness.probe.grace.ms, so a crashed broker process"
                + " is fenced in about that time rather than broker.session.timeout.ms. A paused"
                + " process or a machine lost without closing its connections still waits for the"
                + " session timeout.")
        .uses(
            LIVENESS_PROBE_GRACE_MS,
            INT,
            1_000,
            atLeast(200),
            MEDIUM,
            "Brook only: how long after a broker's connection to a controller closed the"
                + " liveness probe keeps trying to connect again (every 200 ms) before the active"
                + " controller fences the broker. A broker that closes an idle connection reconnects"
                + " at once; a dead process refuses every attempt.")
        .uses(
            "initial.broker.registration.timeout.ms",
            INT,
            60_000,
            ANY,
            MEDIUM,
            "How long a starting broker waits to register with the controller before giving up.")
        .uses(
            METADATA_LOG_DIR,
            STRING,
            null,
            ANY,
            HIGH,
            "Directory of the cluster metadata log; defaults to the first of log.dirs.")
        .accepts(
            "metadata.log.segment.bytes",
            INT,
            1024 * 1024 * 1024,
            atLeast(12),
            HIGH,
            "Segment size of the metadata log.")
        .accepts(
            "metadata.log.segment.ms",
            LONG,
            7L * 24 * 60 * 60 * 1000,
            ANY,
            HIGH,
            "Age at which the active metadata log segment is rolled.")
        .accepts(
            "metadata.max.retention.bytes",
            LONG,
            100L * 1024 * 1024,
            ANY,
            HIGH,
            "Size of metadata log plus snapshots above which old ones are deleted (soft limit).")
        .accepts(
            "metadata.max.retention.ms",
            LONG,
            7L * 24 * 60 * 60 * 1000,
            ANY,
            HIGH,
            "Age after which metadata log segments and snapshots are deleted (soft limit).")
        .accepts(
            "metadata.log.max.record.bytes.between.snapshots",
            LONG,
            20L * 1024 * 1024,
            atLeast(1),
            HIGH,
            "Bytes of new metadata records after which a snapshot is written.")
        .accepts(
            "metadata.log.max.snapshot.interval.ms",
            LONG,
            60L * 60 * 1000,
            atLeast(0),
            HIGH,
            "Longest time committed metadata waits for a snapshot; 0 disables time-based ones.")
        .accepts(
            "metadata.max.idle.interval.ms",
            INT,
            500,
            atLeast(0),
            LOW,
            "How often the active controller writes a no-op record to show liveness; 0 disables.");
  }
}
