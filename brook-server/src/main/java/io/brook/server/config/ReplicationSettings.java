package io.brook.server.config;

import static io.brook.server.config.ConfigTable.ANY;
import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;
import static org.apache.kafka.common.config.ConfigDef.Type.BOOLEAN;
import static org.apache.kafka.common.config.ConfigDef.Type.INT;
import static org.apache.kafka.common.config.ConfigDef.Type.LONG;
import static org.apache.kafka.common.config.ConfigDef.Type.STRING;

/** Replication factor, ISR, follower fetching, leader balancing and request purgatories. */
final class ReplicationSettings {

  static final String DEFAULT_REPLICATION_FACTOR = "default.replication.factor";
  static final String REPLICA_LAG_TIME_MAX_MS = "replica.lag.time.max.ms";
  static final String REPLICA_SOCKET_TIMEOUT_MS = "replica.socket.timeout.ms";
  static final String REPLICA_FETCH_WAIT_MAX_MS = "replica.fetch.wait.max.ms";

  private ReplicationSettings() {}

  static void define(ConfigTable table) {
    table
        .section(ConfigArea.REPLICATION)
        .uses(
            DEFAULT_REPLICATION_FACTOR,
            INT,
            1,
            // Kafka has no validator here; a factor must fit the protocol's INT16 and be >= 1.
            between(1, (int) Short.MAX_VALUE),
            MEDIUM,
            "Replication factor of auto-created topics and of CreateTopics with -1.")
        .uses(
            "min.insync.replicas",
            INT,
            1,
            atLeast(1),
            HIGH,
            "Default of min.insync.replicas: replicas that must hold an acks=all write.")
        .uses(
            "unclean.leader.election.enable",
            BOOLEAN,
            false,
            ANY,
            HIGH,
            "Default of unclean.leader.election.enable.")
        .uses(
            REPLICA_LAG_TIME_MAX_MS,
            LONG,
            30_000L,
            ANY,
            HIGH,
            "A follower that has not caught up to the leader's log end for this long leaves the"
                + " ISR.")
        .uses(
            REPLICA_SOCKET_TIMEOUT_MS,
            INT,
            30_000,
            ANY,
            HIGH,
            "Socket timeout of follower fetches; at least replica.fetch.wait.max.ms.")
        .uses(
            "brook.replica.fetch.stall.timeout.ms",
            INT,
            3_000,
            atLeast(1),
            MEDIUM,
            "Brook only: a follower fetch the leader has not answered this long after"
                + " replica.fetch.wait.max.ms is given up and its connection reopened (after a"
                + " network cut heals, TCP's retransmission back-off can hold the old one silent"
                + " for many seconds). Doubled after each consecutive stall, so a leader slow to"
                + " answer is not asked again and again; never beyond replica.socket.timeout.ms.")
        .uses(
            "replica.socket.receive.buffer.bytes",
            INT,
            64 * 1024,
            ANY,
            HIGH,
            "SO_RCVBUF of follower fetch connections; -1 leaves the operating system's default.")
        .uses(
            "replica.fetch.max.bytes",
            INT,
            1024 * 1024,
            atLeast(0),
            MEDIUM,
            "Bytes a follower asks for per partition (the first batch is sent whole anyway).")
        .uses(
            REPLICA_FETCH_WAIT_MAX_MS,
            INT,
            500,
            ANY,
            HIGH,
            "Longest a follower fetch waits on the leader for data; at most"
                + " replica.lag.time.max.ms.")
        .uses(
            "replica.fetch.min.bytes",
            INT,
            1,
            ANY,
            HIGH,
            "Bytes a follower fetch waits for before the leader answers.")
        .uses(
            "replica.fetch.backoff.ms",
            INT,
            1_000,
            atLeast(0),
            MEDIUM,
            "Pause of a follower after a failed fetch.")
        .uses(
            "replica.fetch.response.max.bytes",
            INT,
            10 * 1024 * 1024,
            atLeast(0),
            MEDIUM,
            "Bytes a follower asks for per fetch in total.")
        .uses(
            "num.replica.fetchers",
            INT,
            1,
            ANY,
            HIGH,
            "Fetcher threads per source broker on a follower.")
        .accepts(
            "replica.high.watermark.checkpoint.interval.ms",
            LONG,
            5_000L,
            ANY,
            HIGH,
            "How often high watermarks are checkpointed to disk.")
        .accepts(
            "fetch.purgatory.purge.interval.requests",
            INT,
            1_000,
            ANY,
            MEDIUM,
            "Completed entries after which the fetch purgatory is purged.")
        .accepts(
            "producer.purgatory.purge.interval.requests",
            INT,
            1_000,
            ANY,
            MEDIUM,
            "Completed entries after which the produce purgatory is purged.")
        .accepts(
            "delete.records.purgatory.purge.interval.requests",
            INT,
            1,
            ANY,
            MEDIUM,
            "Completed entries after which the DeleteRecords purgatory is purged.")
        .uses(
            "auto.leader.rebalance.enable",
            BOOLEAN,
            true,
            ANY,
            HIGH,
            "Move leadership back to preferred replicas when leaders are unbalanced.")
        .accepts(
            "leader.imbalance.per.broker.percentage",
            INT,
            10,
            ANY,
            HIGH,
            "Share of a broker's partitions led elsewhere that triggers a rebalance.")
        .uses(
            "leader.imbalance.check.interval.seconds",
            LONG,
            300L,
            atLeast(1),
            HIGH,
            "How often leader balance is checked.")
        .uses(
            "replica.selector.class",
            STRING,
            null,
            ANY,
            MEDIUM,
            "Class choosing the replica a consumer reads from; unset means the leader. Only"
                + " org.apache.kafka.common.replica.RackAwareReplicaSelector is accepted (KIP-392).")
        .accepts(
            "controller.socket.timeout.ms",
            INT,
            30_000,
            ANY,
            MEDIUM,
            "Socket timeout of controller-to-broker connections.")
        .accepts(
            "num.replica.alter.log.dirs.threads",
            INT,
            null,
            ANY,
            HIGH,
            "Threads moving replicas between log directories; unset means one per directory.");
  }
}
