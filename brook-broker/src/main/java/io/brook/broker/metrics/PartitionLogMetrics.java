package io.brook.broker.metrics;

import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.storage.log.ReplicaLog;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
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

  /** The image last followed; guarded by this. */
  private MetadataImage last = MetadataImage.EMPTY;

  public PartitionLogMetrics(BrokerMetrics metrics, ReplicaManager replicas) {
    this.metrics = metrics;
    this.replicas = replicas;
  }

  /**
   * Follows the partitions the replica manager hosts; call after it applied the image. Visits only
   * the topics the image changed (an image shares every untouched topic's {@link TopicImage}), so
   * creating tens of thousands of partitions over dozens of images costs a pass over each once, not
   * over every hosted partition per image. A partition hosted or dropped without its topic changing
   * (a log directory coming back) shows as a count that differs: then every hosted partition is
   * visited.
   */
  @Override
  public synchronized void accept(MetadataImage image) {
    for (TopicImage topic : last.topics()) {
      if (image.topic(topic.id()).orElse(null) != topic) {
        follow(topic); // changed or deleted: its partitions as they were
      }
    }
    for (TopicImage topic : image.topics()) {
      if (last.topic(topic.id()).orElse(null) != topic) {
        follow(topic);
      }
    }
    last = image;
    Collection<Partition> hosted = replicas.partitions();
    if (hosted.size() != registered.size()) {
      Set<TopicPartition> now = new HashSet<>();
      for (Partition partition : hosted) {
        now.add(partition.topicPartition());
        follow(partition.topicPartition());
      }
      for (TopicPartition tp : List.copyOf(registered)) {
        if (!now.contains(tp)) {
          follow(tp);
        }
      }
    }
  }

  private void follow(TopicImage topic) {
    for (int partition : topic.partitions().keySet()) {
      follow(new TopicPartition(topic.name(), partition));
    }
  }

  /** Registers the gauges of {@code tp} if it is hosted here, removes them if it no longer is. */
  private void follow(TopicPartition tp) {
    boolean hosted = replicas.partition(tp).isPresent();
    if (hosted && registered.add(tp)) {
      for (int i = 0; i < NAMES.length; i++) {
        ToLongFunction<ReplicaLog> value = VALUES[i];
        metrics.newGauge(
            name(tp, NAMES[i]),
            () ->
                replicas
                    .partition(tp)
                    .map(p -> (Number) value.applyAsLong(p.log()))
                    .orElse(Double.NaN));
      }
    } else if (!hosted && registered.remove(tp)) {
      for (String name : NAMES) {
        metrics.registry().removeMetric(name(tp, name));
      }
    }
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
