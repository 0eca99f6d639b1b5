package io.brook.broker.replica;

import io.brook.broker.metrics.BrokerTopicStats;
import io.brook.protocol.metrics.BrokerMetrics;
import java.util.Collection;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Replication health of one broker, with Kafka's meanings (docs/metrics.md has the JMX names).
 *
 * <p>The ISR event meters are marked by {@link Partition} when the controller commits (or refuses)
 * an ISR change. The topic meters ({@link BrokerTopicStats}) are marked per partition of a produce
 * or consumer fetch, never per record. The partition gauges are computed when read, by one pass
 * over the hosted partitions ({@link #snapshot}), never maintained on the hot path.
 */
public final class ReplicationMetrics {
  private static final String DOMAIN = "kafka.server";
  private static final String TYPE = "ReplicaManager";

  private final BrokerTopicStats topicStats = new BrokerTopicStats();
  private volatile Sensor isrShrinks;
  private volatile Sensor isrExpands;
  private volatile Sensor failedIsrUpdates;

  /**
   * Starts recording into {@code metrics} (Kafka's {@code kafka.server:type=ReplicaManager} meters
   * {@code IsrShrinksPerSec}, {@code IsrExpandsPerSec}, {@code FailedIsrUpdatesPerSec} and the
   * BrokerTopicMetrics); before this, events are dropped.
   */
  public void bind(BrokerMetrics metrics) {
    isrShrinks = metrics.meter(DOMAIN, TYPE, "IsrShrinksPerSec");
    isrExpands = metrics.meter(DOMAIN, TYPE, "IsrExpandsPerSec");
    failedIsrUpdates = metrics.meter(DOMAIN, TYPE, "FailedIsrUpdatesPerSec");
    topicStats.bind(metrics);
  }

  /** A committed ISR change that removed replicas. */
  public void isrShrunk() {
    mark(isrShrinks);
  }

  /** A committed ISR change that added replicas. */
  public void isrExpanded() {
    mark(isrExpands);
  }

  /** An ISR change the controller refused or never answered. */
  public void isrUpdateFailed() {
    mark(failedIsrUpdates);
  }

  /** Bytes and messages in and out per topic. */
  public BrokerTopicStats topicStats() {
    return topicStats;
  }

  private static void mark(Sensor sensor) {
    if (sensor != null) {
      sensor.record();
    }
  }

  /**
   * The partition gauges at one moment.
   *
   * @param partitionCount partitions hosted here, as leader or follower
   * @param leaderCount partitions this broker leads
   * @param underReplicated led partitions whose ISR is smaller than their replica set
   * @param underMinIsr led partitions whose ISR is smaller than {@code min.insync.replicas}
   *     (acks=all writes to them fail)
   * @param atMinIsr led partitions whose ISR is exactly {@code min.insync.replicas} (one more loss
   *     and acks=all writes fail)
   */
  public record PartitionCounts(
      int partitionCount, int leaderCount, int underReplicated, int underMinIsr, int atMinIsr) {}

  /** Counts the partitions by their committed ISR, in one pass. */
  public static PartitionCounts snapshot(Collection<Partition> partitions) {
    int total = 0;
    int leaders = 0;
    int underReplicated = 0;
    int underMinIsr = 0;
    int atMinIsr = 0;
    for (Partition partition : partitions) {
      total++;
      if (!partition.isLeader()) {
        continue;
      }
      leaders++;
      PartitionState state = partition.state();
      int isr = state.isr().size();
      int minIsr = partition.log().config().minInSyncReplicas();
      if (isr < state.replicas().size()) {
        underReplicated++;
      }
      if (isr < minIsr) {
        underMinIsr++;
      } else if (isr == minIsr) {
        atMinIsr++;
      }
    }
    return new PartitionCounts(total, leaders, underReplicated, underMinIsr, atMinIsr);
  }
}
