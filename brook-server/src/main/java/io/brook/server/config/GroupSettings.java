package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LIST;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;
import static org.apache.kafka.common.config.ConfigDef.Type.SHORT;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

import org.apache.kafka.common.config.ConfigDef;

/** The group coordinator: classic and consumer groups, and the offsets topic. */
final class GroupSettings {

  static final String OFFSETS_TOPIC_REPLICATION_FACTOR = "offsets.topic.replication.factor";
  static final String OFFSETS_TOPIC_NUM_PARTITIONS = "offsets.topic.num.partitions";
  static final String GROUP_INITIAL_REBALANCE_DELAY_MS = "group.initial.rebalance.delay.ms";
  static final String CONSUMER_SESSION_TIMEOUT_MS = "group.consumer.session.timeout.ms";
  static final String CONSUMER_MIN_SESSION_TIMEOUT_MS = "group.consumer.min.session.timeout.ms";
  static final String CONSUMER_MAX_SESSION_TIMEOUT_MS = "group.consumer.max.session.timeout.ms";
  static final String CONSUMER_HEARTBEAT_INTERVAL_MS = "group.consumer.heartbeat.interval.ms";
  static final String CONSUMER_MIN_HEARTBEAT_INTERVAL_MS =
      "group.consumer.min.heartbeat.interval.ms";
  static final String CONSUMER_MAX_HEARTBEAT_INTERVAL_MS =
      "group.consumer.max.heartbeat.interval.ms";
  static final String GROUP_MIN_SESSION_TIMEOUT_MS = "group.min.session.timeout.ms";
  static final String GROUP_MAX_SESSION_TIMEOUT_MS = "group.max.session.timeout.ms";
  static final String DEAD_CONNECTION_GRACE_MS = "brook.group.dead.connection.grace.ms";

  private GroupSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.GROUPS)
        .uses(
            "group.coordinator.rebalance.protocols",
            LIST,
            "classic,consumer,streams",
            ConfigDef.ValidList.in(false, "classic", "consumer", "share", "streams"),
            MEDIUM,
            "Group protocols the coordinator serves.")
        .uses(
            "group.coordinator.threads",
            INT,
            4,
            atLeast(1),
            HIGH,
            "Threads running the group coordinator.")
        .accepts(
            "group.coordinator.append.linger.ms",
            INT,
            5,
            atLeast(0),
            MEDIUM,
            "How long the coordinator batches its writes to the offsets topic.")
        .uses(
            GROUP_INITIAL_REBALANCE_DELAY_MS,
            INT,
            3_000,
            ANY,
            MEDIUM,
            "How long a new classic group waits for more members before its first rebalance.")
        .uses(
            GROUP_MIN_SESSION_TIMEOUT_MS,
            INT,
            6_000,
            ANY,
            MEDIUM,
            "Shortest session timeout a classic-group member may ask for.")
        .uses(
            GROUP_MAX_SESSION_TIMEOUT_MS,
            INT,
            1_800_000,
            ANY,
            MEDIUM,
            "Longest session timeout a classic-group member may ask for.")
        .uses(
            "group.max.size",
            INT,
            Integer.MAX_VALUE,
            atLeast(1),
            MEDIUM,
            "Most members of one classic group.")
        .uses(
            CONSUMER_SESSION_TIMEOUT_MS,
            INT,
            45_000,
            atLeast(1),
            MEDIUM,
            "Session timeout of consumer-protocol (KIP-848) group members.")
        .uses(
            CONSUMER_MIN_SESSION_TIMEOUT_MS,
            INT,
            45_000,
            atLeast(1),
            MEDIUM,
            "Lowest value a consumer group may set for its session timeout.")
        .uses(
            CONSUMER_MAX_SESSION_TIMEOUT_MS,
            INT,
            60_000,
            atLeast(1),
            MEDIUM,
            "Highest value a consumer group may set for its session timeout.")
        .uses(
            CONSUMER_HEARTBEAT_INTERVAL_MS,
            INT,
            5_000,
            atLeast(1),
            MEDIUM,
            "Heartbeat interval given to consumer-protocol group members.")
        .accepts(
            CONSUMER_MIN_HEARTBEAT_INTERVAL_MS,
            INT,
            5_000,
            atLeast(1),
            MEDIUM,
            "Lowest value a consumer group may set for its heartbeat interval.")
        .accepts(
            CONSUMER_MAX_HEARTBEAT_INTERVAL_MS,
            INT,
            15_000,
            atLeast(1),
            MEDIUM,
            "Highest value a consumer group may set for its heartbeat interval.")
        .uses(
            "group.consumer.max.size",
            INT,
            Integer.MAX_VALUE,
            atLeast(1),
            MEDIUM,
            "Most members of one consumer-protocol group.")
        .uses(
            "group.consumer.assignors",
            LIST,
            "uniform,range",
            ConfigDef.ValidList.anyNonDuplicateValues(false, false),
            MEDIUM,
            "Server-side assignors, by name or class; the first is the default.")
        .accepts(
            "group.consumer.migration.policy",
            STRING,
            "bidirectional",
            ConfigDef.CaseInsensitiveValidString.in(
                "disabled", "upgrade", "downgrade", "bidirectional"),
            MEDIUM,
            "Whether non-empty groups may switch between the classic and consumer protocols.")
        .uses(
            OFFSETS_TOPIC_REPLICATION_FACTOR,
            SHORT,
            (short) 3,
            atLeast(1),
            HIGH,
            "Replication factor of __consumer_offsets; creating it waits for this many brokers.")
        .uses(
            OFFSETS_TOPIC_NUM_PARTITIONS,
            INT,
            50,
            atLeast(1),
            HIGH,
            "Partitions of __consumer_offsets; do not change after the cluster is created.")
        .uses(
            "offsets.topic.segment.bytes",
            INT,
            100 * 1024 * 1024,
            atLeast(1),
            HIGH,
            "Segment size of __consumer_offsets, small to keep compaction and loading fast.")
        .accepts(
            "offsets.topic.compression.codec",
            INT,
            0,
            ANY,
            HIGH,
            "Codec id for __consumer_offsets batches (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd).")
        .uses(
            "offsets.load.buffer.size",
            INT,
            5 * 1024 * 1024,
            atLeast(1),
            HIGH,
            "Read size when loading a group partition into memory.")
        .uses(
            "offsets.retention.minutes",
            INT,
            7 * 24 * 60,
            atLeast(1),
            HIGH,
            "How long committed offsets of an empty group (or a standalone consumer) are kept.")
        .uses(
            "offsets.retention.check.interval.ms",
            LONG,
            600_000L,
            atLeast(1),
            HIGH,
            "How often expired offsets are looked for.")
        .uses(
            "offsets.commit.timeout.ms",
            INT,
            5_000,
            atLeast(1),
            HIGH,
            "How long an offset commit waits for all replicas of the offsets partition.")
        .uses(
            "offset.metadata.max.bytes",
            INT,
            4_096,
            ANY,
            HIGH,
            "Largest metadata string allowed with a committed offset.")
        .uses(
            DEAD_CONNECTION_GRACE_MS,
            LONG,
            2_000L,
            atLeast(0),
            MEDIUM,
            "Brook only: how long a classic-group member without group.instance.id is kept after"
                + " its connection to the coordinator closes before it is removed and its"
                + " partitions move. Static members keep their full session timeout.");
    defineShare(table);
  }

  /** Share groups (KIP-932): membership at the coordinator, delivery state at the leaders. */
  private static void defineShare(ConfigTable table) {
    table
        .section(ConfigArea.GROUPS)
        .uses(
            "group.share.session.timeout.ms",
            INT,
            45_000,
            atLeast(1),
            MEDIUM,
            "Session timeout of share group members; also how long an unused share session is"
                + " kept at a partition leader.")
        .uses(
            "group.share.heartbeat.interval.ms",
            INT,
            5_000,
            atLeast(1),
            MEDIUM,
            "Heartbeat interval given to share group members.")
        .uses(
            "group.share.min.session.timeout.ms",
            INT,
            45_000,
            atLeast(1),
            MEDIUM,
            "Smallest share.session.timeout.ms a share group may set.")
        .uses(
            "group.share.max.session.timeout.ms",
            INT,
            60_000,
            atLeast(1),
            MEDIUM,
            "Largest share.session.timeout.ms a share group may set.")
        .uses(
            "group.share.min.heartbeat.interval.ms",
            INT,
            5_000,
            atLeast(1),
            MEDIUM,
            "Smallest share.heartbeat.interval.ms a share group may set.")
        .uses(
            "group.share.max.heartbeat.interval.ms",
            INT,
            15_000,
            atLeast(1),
            MEDIUM,
            "Largest share.heartbeat.interval.ms a share group may set.")
        .uses(
            "group.share.max.size",
            INT,
            200,
            atLeast(1),
            MEDIUM,
            "Most members of one share group.")
        .uses(
            "group.share.initialize.retry.interval.ms",
            INT,
            30_000,
            atLeast(1),
            MEDIUM,
            "How long the group coordinator waits for a share-partition it asked its share"
                + " coordinator to initialize before a heartbeat asks again (a failed attempt is"
                + " retried by the next heartbeat).")
        .uses(
            "group.share.record.lock.duration.ms",
            INT,
            30_000,
            atLeast(1),
            MEDIUM,
            "How long a record delivered to a share group member stays locked to it before it"
                + " can be delivered again.")
        .uses(
            "group.share.delivery.count.limit",
            INT,
            5,
            atLeast(1),
            MEDIUM,
            "Deliveries after which a record that comes back is archived instead of delivered"
                + " again.")
        .uses(
            "group.share.partition.max.record.locks",
            INT,
            2_000,
            atLeast(1),
            MEDIUM,
            "Most records a share-partition tracks past its start offset (the in-flight window).")
        .uses(
            "group.share.min.record.lock.duration.ms",
            INT,
            15_000,
            atLeast(1),
            MEDIUM,
            "Smallest share.record.lock.duration.ms a share group may set.")
        .uses(
            "group.share.max.record.lock.duration.ms",
            INT,
            60_000,
            atLeast(1),
            MEDIUM,
            "Largest share.record.lock.duration.ms a share group may set.")
        .uses(
            "group.share.min.delivery.count.limit",
            INT,
            2,
            atLeast(1),
            MEDIUM,
            "Smallest share.delivery.count.limit a share group may set.")
        .uses(
            "group.share.max.delivery.count.limit",
            INT,
            10,
            atLeast(1),
            MEDIUM,
            "Largest share.delivery.count.limit a share group may set.")
        .uses(
            "group.share.min.partition.max.record.locks",
            INT,
            100,
            atLeast(1),
            MEDIUM,
            "Smallest share.partition.max.record.locks a share group may set.")
        .uses(
            "group.share.max.partition.max.record.locks",
            INT,
            4_000,
            atLeast(1),
            MEDIUM,
            "Largest share.partition.max.record.locks a share group may set.")
        .uses(
            "group.share.max.share.sessions",
            INT,
            2_000,
            atLeast(0),
            MEDIUM,
            "Most share sessions (share group members fetching) per broker.")
        .uses(
            "brook.share.auto.offset.reset",
            STRING,
            "latest",
            ConfigDef.ValidString.in("latest", "earliest"),
            MEDIUM,
            "Brook only: where a share group starts on a partition it has not consumed, for the"
                + " groups that do not set Kafka's group config share.auto.offset.reset (latest or"
                + " earliest).")
        .uses(
            "share.coordinator.state.topic.num.partitions",
            INT,
            50,
            atLeast(1),
            HIGH,
            "Partitions of __share_group_state; do not change after the cluster is created.")
        .uses(
            "share.coordinator.state.topic.replication.factor",
            SHORT,
            (short) 3,
            atLeast(1),
            HIGH,
            "Replication factor of __share_group_state (capped by the live brokers when it is"
                + " created).")
        .uses(
            "share.coordinator.state.topic.min.isr",
            INT,
            2,
            atLeast(1),
            HIGH,
            "min.insync.replicas of __share_group_state.")
        .uses(
            "share.coordinator.state.topic.segment.bytes",
            INT,
            100 * 1024 * 1024,
            atLeast(1),
            HIGH,
            "Segment size of __share_group_state.")
        .uses(
            "share.coordinator.load.buffer.size",
            INT,
            5 * 1024 * 1024,
            atLeast(1),
            HIGH,
            "Read size when loading a __share_group_state partition into memory.")
        .uses(
            "share.coordinator.threads",
            INT,
            1,
            atLeast(1),
            MEDIUM,
            "Threads of the share coordinator.")
        .uses(
            "share.coordinator.write.timeout.ms",
            INT,
            5_000,
            atLeast(1),
            HIGH,
            "How long a share-partition state write may wait to be replicated before it fails.");
  }
}
