package io.brook.controller.state;

/**
 * The controller's settings.
 *
 * @param defaultNumPartitions partitions of a topic created with {@code numPartitions = -1}
 *     (Kafka's {@code num.partitions}, default 1)
 * @param defaultReplicationFactor replicas of a topic created with {@code replicationFactor = -1}
 *     (Kafka's {@code default.replication.factor}, default 1)
 * @param producerIdBlockSize producer ids per {@code AllocateProducerIds} block (Kafka's is 1000)
 * @param maxRecordsPerOperation the most records one operation may produce; larger requests fail
 *     with {@code POLICY_VIOLATION}, as in Kafka, whose bound is 10,000
 * @param uncleanLeaderElectionEnable the static default of {@code unclean.leader.election.enable}
 *     (Kafka's is false), used when neither the topic nor the cluster-wide broker config sets it
 * @param minInsyncReplicas the static default of {@code min.insync.replicas} (Kafka's is 1), used
 *     like {@code uncleanLeaderElectionEnable} to decide when replicas join the ELR
 * @param eligibleLeaderReplicasEnable whether the controller tracks eligible leader replicas
 *     (KIP-966; Kafka's {@code eligible.leader.replicas.version=1}, on by default on new clusters)
 */
public record ControllerConfig(
    int defaultNumPartitions,
    short defaultReplicationFactor,
    int producerIdBlockSize,
    int maxRecordsPerOperation,
    boolean uncleanLeaderElectionEnable,
    int minInsyncReplicas,
    boolean eligibleLeaderReplicasEnable) {
  /** Kafka's defaults. */
  public static final ControllerConfig DEFAULT = new ControllerConfig(1, (short) 1);

  public ControllerConfig {
    if (defaultNumPartitions <= 0) {
      throw new IllegalArgumentException("defaultNumPartitions must be positive");
    }
    if (defaultReplicationFactor <= 0) {
      throw new IllegalArgumentException("defaultReplicationFactor must be positive");
    }
    if (producerIdBlockSize <= 0) {
      throw new IllegalArgumentException("producerIdBlockSize must be positive");
    }
    if (maxRecordsPerOperation <= 0) {
      throw new IllegalArgumentException("maxRecordsPerOperation must be positive");
    }
    if (minInsyncReplicas <= 0) {
      throw new IllegalArgumentException("minInsyncReplicas must be positive");
    }
  }

  /**
   * The given topic defaults with a block size of 1000 and at most 10,000 records per operation.
   */
  public ControllerConfig(int defaultNumPartitions, short defaultReplicationFactor) {
    this(defaultNumPartitions, defaultReplicationFactor, 1000, 10_000);
  }

  /**
   * The given settings, with unclean leader election off by default, a min ISR of 1 and eligible
   * leader replicas tracked, as in Kafka.
   */
  public ControllerConfig(
      int defaultNumPartitions,
      short defaultReplicationFactor,
      int producerIdBlockSize,
      int maxRecordsPerOperation) {
    this(
        defaultNumPartitions,
        defaultReplicationFactor,
        producerIdBlockSize,
        maxRecordsPerOperation,
        false,
        1,
        true);
  }

  /** This config with another default for {@code unclean.leader.election.enable}. */
  public ControllerConfig withUncleanLeaderElectionEnable(boolean enable) {
    return new ControllerConfig(
        defaultNumPartitions,
        defaultReplicationFactor,
        producerIdBlockSize,
        maxRecordsPerOperation,
        enable,
        minInsyncReplicas,
        eligibleLeaderReplicasEnable);
  }

  /** This config with another default for {@code min.insync.replicas}. */
  public ControllerConfig withMinInsyncReplicas(int minIsr) {
    return new ControllerConfig(
        defaultNumPartitions,
        defaultReplicationFactor,
        producerIdBlockSize,
        maxRecordsPerOperation,
        uncleanLeaderElectionEnable,
        minIsr,
        eligibleLeaderReplicasEnable);
  }

  /** This config with eligible leader replicas tracked or not. */
  public ControllerConfig withEligibleLeaderReplicas(boolean enable) {
    return new ControllerConfig(
        defaultNumPartitions,
        defaultReplicationFactor,
        producerIdBlockSize,
        maxRecordsPerOperation,
        uncleanLeaderElectionEnable,
        minInsyncReplicas,
        enable);
  }
}
