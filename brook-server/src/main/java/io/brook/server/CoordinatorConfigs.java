package io.brook.server;

import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.group.GroupConfig;
import io.brook.server.config.BrokerConfig;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;

/** The coordinators' settings, read from the broker configuration under Kafka's names. */
final class CoordinatorConfigs {
  static final String TRANSACTION_STATE_TOPIC = "__transaction_state";

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
        (Long) config.value("brook.group.dead.connection.grace.ms"));
  }

  /** How {@code __transaction_state} is created when FindCoordinator first asks for it. */
  static InternalTopic transactionTopic(BrokerConfig config) {
    return new InternalTopic(
        TRANSACTION_STATE_TOPIC,
        intValue(config, "transaction.state.log.num.partitions"),
        (Short) config.value("transaction.state.log.replication.factor"),
        Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG,
            TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.SEGMENT_BYTES_CONFIG,
            Integer.toString(intValue(config, "transaction.state.log.segment.bytes")),
            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
            Integer.toString(intValue(config, "transaction.state.log.min.isr")),
            TopicConfig.COMPRESSION_TYPE_CONFIG,
            "uncompressed"));
  }

  private static int intValue(BrokerConfig config, String name) {
    return (Integer) config.value(name);
  }

  @SuppressWarnings("unchecked")
  private static List<String> listValue(BrokerConfig config, String name) {
    return (List<String>) config.value(name);
  }
}
