package io.brook.coordinator.share;

/**
 * The share coordinator's settings, under Kafka's names.
 *
 * @param numPartitions {@code share.coordinator.state.topic.num.partitions}
 * @param replicationFactor {@code share.coordinator.state.topic.replication.factor}
 * @param segmentBytes {@code share.coordinator.state.topic.segment.bytes}
 * @param minIsr {@code share.coordinator.state.topic.min.isr}
 * @param loadBufferSize {@code share.coordinator.load.buffer.size}
 * @param writeTimeoutMs {@code share.coordinator.write.timeout.ms}: how long a state write may wait
 *     to be replicated before it fails
 * @param threads {@code share.coordinator.threads}
 */
public record ShareStateConfig(
    int numPartitions,
    short replicationFactor,
    int segmentBytes,
    int minIsr,
    int loadBufferSize,
    long writeTimeoutMs,
    int threads) {
  public static final String TOPIC = "__share_group_state";

  /** Kafka's defaults, for tests. */
  public static ShareStateConfig defaults() {
    return new ShareStateConfig(50, (short) 3, 100 * 1024 * 1024, 2, 5 * 1024 * 1024, 5_000, 1);
  }
}
