package io.brook.coordinator.group;

import java.util.List;

/**
 * The group coordinator's settings, under Kafka's names (see docs/configuration.md).
 *
 * @param offsetsTopicNumPartitions {@code offsets.topic.num.partitions}
 * @param offsetsTopicReplicationFactor {@code offsets.topic.replication.factor}, capped by the live
 *     brokers when the topic is created
 * @param offsetsTopicSegmentBytes {@code offsets.topic.segment.bytes}
 * @param offsetsLoadBufferSize {@code offsets.load.buffer.size}
 * @param offsetsRetentionMs {@code offsets.retention.minutes}, in ms
 * @param offsetsRetentionCheckIntervalMs {@code offsets.retention.check.interval.ms}
 * @param offsetsCommitTimeoutMs {@code offsets.commit.timeout.ms}
 * @param offsetMetadataMaxBytes {@code offset.metadata.max.bytes}
 * @param coordinatorThreads {@code group.coordinator.threads}
 * @param rebalanceProtocols {@code group.coordinator.rebalance.protocols}
 * @param groupInitialRebalanceDelayMs {@code group.initial.rebalance.delay.ms}
 * @param groupMinSessionTimeoutMs {@code group.min.session.timeout.ms}
 * @param groupMaxSessionTimeoutMs {@code group.max.session.timeout.ms}
 * @param groupMaxSize {@code group.max.size}
 * @param consumerSessionTimeoutMs {@code group.consumer.session.timeout.ms}
 * @param consumerMinSessionTimeoutMs {@code group.consumer.min.session.timeout.ms}
 * @param consumerMaxSessionTimeoutMs {@code group.consumer.max.session.timeout.ms}
 * @param consumerHeartbeatIntervalMs {@code group.consumer.heartbeat.interval.ms}
 * @param consumerMaxSize {@code group.consumer.max.size}
 * @param consumerAssignors {@code group.consumer.assignors}; the first is the default
 * @param deadConnectionGraceMs Brook's {@code brook.group.dead.connection.grace.ms}: how long a
 *     dynamic member whose coordinator connection closed is kept before it is removed
 * @param share the share groups' membership settings ({@code group.share.*})
 */
public record GroupConfig(
    int offsetsTopicNumPartitions,
    short offsetsTopicReplicationFactor,
    int offsetsTopicSegmentBytes,
    int offsetsLoadBufferSize,
    long offsetsRetentionMs,
    long offsetsRetentionCheckIntervalMs,
    int offsetsCommitTimeoutMs,
    int offsetMetadataMaxBytes,
    int coordinatorThreads,
    List<String> rebalanceProtocols,
    int groupInitialRebalanceDelayMs,
    int groupMinSessionTimeoutMs,
    int groupMaxSessionTimeoutMs,
    int groupMaxSize,
    int consumerSessionTimeoutMs,
    int consumerMinSessionTimeoutMs,
    int consumerMaxSessionTimeoutMs,
    int consumerHeartbeatIntervalMs,
    int consumerMaxSize,
    List<String> consumerAssignors,
    long deadConnectionGraceMs,
    Share share) {

  /** The internal topic holding group state and committed offsets. */
  public static final String OFFSETS_TOPIC = "__consumer_offsets";

  public GroupConfig {
    rebalanceProtocols = List.copyOf(rebalanceProtocols);
    consumerAssignors = List.copyOf(consumerAssignors);
  }

  /**
   * Share group (KIP-932) membership, under Kafka's names.
   *
   * @param sessionTimeoutMs {@code group.share.session.timeout.ms}
   * @param heartbeatIntervalMs {@code group.share.heartbeat.interval.ms}
   * @param maxSize {@code group.share.max.size}
   * @param initializeRetryIntervalMs {@code group.share.initialize.retry.interval.ms}: how long a
   *     share-partition's initialization may go unanswered before a heartbeat starts it again
   */
  public record Share(
      int sessionTimeoutMs, int heartbeatIntervalMs, int maxSize, int initializeRetryIntervalMs) {
    /** Kafka's defaults. */
    public static Share defaults() {
      return new Share(45_000, 5_000, 200, 30_000);
    }
  }

  /** Kafka's defaults. */
  public static GroupConfig defaults() {
    return new GroupConfig(
        50,
        (short) 3,
        100 * 1024 * 1024,
        5 * 1024 * 1024,
        7L * 24 * 60 * 60 * 1000,
        600_000L,
        5_000,
        4096,
        4,
        List.of("classic", "consumer"),
        3_000,
        6_000,
        1_800_000,
        Integer.MAX_VALUE,
        45_000,
        45_000,
        60_000,
        5_000,
        Integer.MAX_VALUE,
        List.of("uniform", "range"),
        2_000L,
        Share.defaults());
  }
}
