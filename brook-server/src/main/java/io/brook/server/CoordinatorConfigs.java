package io.brook.server;

import io.brook.broker.share.ShareGroupBounds;
import io.brook.broker.share.ShareLimits;
import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.group.GroupConfig;
import io.brook.coordinator.share.ShareStateConfig;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.coordinator.txn.TxnConfig;
import io.brook.server.config.BrokerConfig;
import java.util.List;

/** The coordinators' settings, read from the broker configuration under Kafka's names. */
final class CoordinatorConfigs {
  private CoordinatorConfigs() {}

  static GroupConfig groups(BrokerConfig config) {
    return new GroupConfig(
        config.offsetsTopicNumPartitions(),
        config.offsetsTopicReplicationFactor(),
        intValue(config, "offsets.topic.segment.bytes"),
        intValue(config, "offsets.load.buffer.size"),
        intValue(config, "offsets.retention.minutes") * 60_000L,
        (Long) config.value("offsets.retention.check.interval.ms"),
        intValue(config, "offsets.commit.timeout.ms"),
        intValue(config, "offset.metadata.max.bytes"),
        intValue(config, "group.coordinator.threads"),
        listValue(config, "group.coordinator.rebalance.protocols"),
        config.groupInitialRebalanceDelayMs(),
        intValue(config, "group.min.session.timeout.ms"),
        intValue(config, "group.max.session.timeout.ms"),
        intValue(config, "group.max.size"),
        intValue(config, "group.consumer.session.timeout.ms"),
        intValue(config, "group.consumer.min.session.timeout.ms"),
        intValue(config, "group.consumer.max.session.timeout.ms"),
        intValue(config, "group.consumer.heartbeat.interval.ms"),
        intValue(config, "group.consumer.max.size"),
        listValue(config, "group.consumer.assignors"),
        (Long) config.value("brook.group.dead.connection.grace.ms"),
        new GroupConfig.Share(
            intValue(config, "group.share.session.timeout.ms"),
            intValue(config, "group.share.heartbeat.interval.ms"),
            intValue(config, "group.share.max.size"),
            intValue(config, "group.share.initialize.retry.interval.ms")));
  }

  /** Share-partition state at the partition leaders. */
  static ShareLimits shareLimits(BrokerConfig config) {
    return new ShareLimits(
        intValue(config, "group.share.record.lock.duration.ms"),
        intValue(config, "group.share.delivery.count.limit"),
        intValue(config, "group.share.partition.max.record.locks"),
        intValue(config, "group.share.max.share.sessions"),
        intValue(config, "group.share.session.timeout.ms"),
        "earliest".equals(config.value("brook.share.auto.offset.reset")),
        shareGroupBounds(config));
  }

  /** The bounds of the share groups' own configs ({@code group.share.min/max.*}). */
  static ShareGroupBounds shareGroupBounds(BrokerConfig config) {
    return new ShareGroupBounds(
        intValue(config, "group.share.min.record.lock.duration.ms"),
        intValue(config, "group.share.max.record.lock.duration.ms"),
        intValue(config, "group.share.min.delivery.count.limit"),
        intValue(config, "group.share.max.delivery.count.limit"),
        intValue(config, "group.share.min.partition.max.record.locks"),
        intValue(config, "group.share.max.partition.max.record.locks"),
        intValue(config, "group.share.min.session.timeout.ms"),
        intValue(config, "group.share.max.session.timeout.ms"),
        intValue(config, "group.share.min.heartbeat.interval.ms"),
        intValue(config, "group.share.max.heartbeat.interval.ms"),
        intValue(config, "group.share.session.timeout.ms"),
        intValue(config, "group.share.heartbeat.interval.ms"));
  }

  /** The share coordinator and {@code __share_group_state}. */
  static ShareStateConfig shareState(BrokerConfig config) {
    return new ShareStateConfig(
        intValue(config, "share.coordinator.state.topic.num.partitions"),
        (Short) config.value("share.coordinator.state.topic.replication.factor"),
        intValue(config, "share.coordinator.state.topic.segment.bytes"),
        intValue(config, "share.coordinator.state.topic.min.isr"),
        intValue(config, "share.coordinator.load.buffer.size"),
        intValue(config, "share.coordinator.write.timeout.ms"),
        intValue(config, "share.coordinator.threads"));
  }

  static TxnConfig transactions(BrokerConfig config) {
    return new TxnConfig(
        intValue(config, "transaction.state.log.num.partitions"),
        (Short) config.value("transaction.state.log.replication.factor"),
        intValue(config, "transaction.state.log.segment.bytes"),
        intValue(config, "transaction.state.log.min.isr"),
        intValue(config, "transaction.state.log.load.buffer.size"),
        intValue(config, "transaction.max.timeout.ms"),
        intValue(config, "transactional.id.expiration.ms"),
        intValue(config, "transaction.abort.timed.out.transaction.cleanup.interval.ms"),
        intValue(config, "transaction.remove.expired.transaction.cleanup.interval.ms"),
        Math.max(1, intValue(config, "request.timeout.ms")),
        // Kafka's transaction coordinator has no thread setting; its work is light.
        1,
        config.addPartitionsToTxnRetryBackoffMs());
  }

  /** How {@code __transaction_state} is created when FindCoordinator first asks for it. */
  static InternalTopic transactionTopic(BrokerConfig config) {
    return TransactionCoordinator.stateTopic(transactions(config));
  }

  private static int intValue(BrokerConfig config, String name) {
    return (Integer) config.value(name);
  }

  @SuppressWarnings("unchecked")
  private static List<String> listValue(BrokerConfig config, String name) {
    return (List<String>) config.value(name);
  }
}
