package io.brook.broker.replica;

import io.brook.broker.metrics.Meter;
import java.util.Collection;
import org.apache.kafka.common.utils.Time;

/**
 * Replication health of one broker, with Kafka's meanings (docs/metrics.md has the JMX names).
 *
 * <p>The ISR event meters are marked by {@link Partition} when the controller commits (or refuses)
 * an ISR change; nothing is counted per record or per fetch. The partition gauges are computed when
 * read, by one pass over the hosted partitions ({@link #snapshot}), never maintained on the hot
 * path.
 */
public final class ReplicationMetrics {
  private final Meter isrShrinks;
  private final Meter isrExpands;
  private final Meter failedIsrUpdates;

  public ReplicationMetrics(Time time) {
    this.isrShrinks = new Meter(time);
    this.isrExpands = new Meter(time);
    this.failedIsrUpdates = new Meter(time);
  }

  /** Committed ISR changes that removed replicas. */
  public Meter isrShrinks() {
    return isrShrinks;
  }

  /** Committed ISR changes that added replicas. */
  public Meter isrExpands() {
    return isrExpands;
  }

  /** ISR changes the controller refused or never answered. */
  public Meter failedIsrUpdates() {
    return failedIsrUpdates;
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
