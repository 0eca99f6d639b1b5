package io.brook.server;

import io.brook.controller.quorum.ClusterQuorum;
import io.brook.metadata.image.BrokerRegistration;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.metrics.BrokerMetrics;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.MetricName;

/**
 * The metadata and controller gauges, under Kafka's names, read from the node's metadata image and
 * quorum when scraped:
 *
 * <ul>
 *   <li>on every node, {@code kafka.server:type=broker-metadata-metrics} {@code
 *       last-applied-record-offset};
 *   <li>on a controller, {@code kafka.controller:type=KafkaController} {@code
 *       ActiveControllerCount}, {@code LastAppliedRecordOffset}, {@code LastCommittedRecordOffset}
 *       (on the active controller) and {@code kafka.controller:type=ControllerEventManager,
 *       name=EventQueueSize}; and the cluster-wide counts {@code OfflinePartitionsCount}, {@code
 *       GlobalTopicCount}, {@code GlobalPartitionCount}, {@code ActiveBrokerCount}, {@code
 *       FencedBrokerCount} and {@code PreferredReplicaImbalanceCount}, which only the active
 *       controller reports (0 on the others), so that their sum over the cluster is the figure.
 * </ul>
 */
final class ControllerMetrics {
  private static final String CONTROLLER = "kafka.controller";
  private static final String KAFKA_CONTROLLER = "KafkaController";

  private ControllerMetrics() {}

  static void register(BrokerMetrics metrics, ClusterQuorum quorum, boolean controller) {
    metrics.gauge(
        new MetricName(
            "last-applied-record-offset", "kafka.server.broker-metadata-metrics", "", Map.of()),
        () -> quorum.image().offset());
    if (!controller) {
      return;
    }
    metrics.gauge(
        CONTROLLER,
        KAFKA_CONTROLLER,
        "ActiveControllerCount",
        () -> quorum.isActiveController() ? 1 : 0);
    metrics.gauge(
        CONTROLLER, KAFKA_CONTROLLER, "LastAppliedRecordOffset", () -> quorum.image().offset());
    metrics.gauge(
        CONTROLLER,
        KAFKA_CONTROLLER,
        "LastCommittedRecordOffset",
        () ->
            quorum
                .quorumState()
                .map(state -> (Number) (state.highWatermark() - 1))
                .orElse(Double.NaN));
    metrics.gauge(CONTROLLER, "ControllerEventManager", "EventQueueSize", quorum::queuedOperations);
    clusterGauge(metrics, quorum, "OfflinePartitionsCount", ControllerMetrics::offlinePartitions);
    clusterGauge(metrics, quorum, "GlobalTopicCount", image -> image.topics().size());
    clusterGauge(metrics, quorum, "GlobalPartitionCount", ControllerMetrics::partitions);
    clusterGauge(metrics, quorum, "ActiveBrokerCount", image -> brokers(image, false));
    clusterGauge(metrics, quorum, "FencedBrokerCount", image -> brokers(image, true));
    clusterGauge(
        metrics, quorum, "PreferredReplicaImbalanceCount", ControllerMetrics::notPreferredLeader);
  }

  private static void clusterGauge(
      BrokerMetrics metrics,
      ClusterQuorum quorum,
      String name,
      ToLongFunction<MetadataImage> value) {
    metrics.gauge(
        CONTROLLER,
        KAFKA_CONTROLLER,
        name,
        () -> quorum.isActiveController() ? value.applyAsLong(quorum.image()) : 0L);
  }

  private static long partitions(MetadataImage image) {
    long count = 0;
    for (TopicImage topic : image.topics()) {
      count += topic.partitions().size();
    }
    return count;
  }

  private static long offlinePartitions(MetadataImage image) {
    long count = 0;
    for (TopicImage topic : image.topics()) {
      for (PartitionImage partition : topic.partitions().values()) {
        count += partition.hasLeader() ? 0 : 1;
      }
    }
    return count;
  }

  private static long notPreferredLeader(MetadataImage image) {
    long count = 0;
    for (TopicImage topic : image.topics()) {
      for (PartitionImage partition : topic.partitions().values()) {
        boolean preferred =
            !partition.replicas().isEmpty() && partition.leader() == partition.replicas().get(0);
        count += preferred || !partition.hasLeader() ? 0 : 1;
      }
    }
    return count;
  }

  private static long brokers(MetadataImage image, boolean fenced) {
    long count = 0;
    for (BrokerRegistration broker : image.brokers().values()) {
      count += broker.fenced() == fenced ? 1 : 0;
    }
    return count;
  }
}
