package io.brook.broker.metrics;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.storage.log.ReplicaLog;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's per-partition log gauges, {@code kafka.log:type=Log,name=<Size|LogStartOffset|
 * LogEndOffset>,topic=<t>,partition=<p>}, for every partition this broker hosts: registered as the
 * partitions arrive with each metadata image, removed when they go, read when scraped.
 */
public final class PartitionLogMetrics implements Consumer<MetadataImage> {
  private static final String[] NAMES = {"Size", "LogStartOffset", "LogEndOffset"};

  @SuppressWarnings("unchecked")
  private static final ToLongFunction<ReplicaLog>[] VALUES =
      new ToLongFunction[] {
        (ToLongFunction<ReplicaLog>) ReplicaLog::sizeInBytes,
        (ToLongFunction<ReplicaLog>) ReplicaLog::logStartOffset,
        (ToLongFunction<ReplicaLog>) ReplicaLog::logEndOffset
      };

  private final BrokerMetrics metrics;
  private final ReplicaManager replicas;

  /** Partitions with gauges; guarded by this. */
  private final Set<TopicPartition> registered = new HashSet<>();

  public PartitionLogMetrics(BrokerMetrics metrics, ReplicaManager replicas) {
    this.metrics = metrics;
    this.replicas = replicas;
  }

  /** Follows the partitions the replica manager hosts; call after it applied the image. */
  @Override
  public synchronized void accept(MetadataImage image) {
    Set<TopicPartition> hosted = new HashSet<>();
    for (Partition partition : replicas.partitions()) {
      TopicPartition tp = partition.topicPartition();
      hosted.add(tp);
      if (registered.add(tp)) {
        for (int i = 0; i < NAMES.length; i++) {
          ToLongFunction<ReplicaLog> value = VALUES[i];
          metrics.gauge(
              name(tp, NAMES[i]),
              () ->
                  replicas
                      .partition(tp)
                      .map(p -> (Number) value.applyAsLong(p.log()))
                      .orElse(Double.NaN));
        }
      }
    }
    registered.removeIf(
        tp -> {
          if (hosted.contains(tp)) {
            return false;
          }
          for (String name : NAMES) {
            metrics.registry().removeMetric(name(tp, name));
          }
          return true;
        });
  }

  private static MetricName name(TopicPartition tp, String name) {
    return BrokerMetrics.name(
        "kafka.log",
        "Log",
        name,
        BrokerMetrics.VALUE,
        "topic",
        tp.topic(),
        "partition",
        Integer.toString(tp.partition()));
  }
}
