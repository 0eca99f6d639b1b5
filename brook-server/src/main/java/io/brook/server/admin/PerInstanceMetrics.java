package io.brook.server.admin;

import io.brook.protocol.metrics.BrokerMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.MetricName;

/**
 * The metrics a node registers once per topic, partition, consumer group, share group or client
 * (user and client id), as the metrics reference lists them (a meter by its {@code Count}), with
 * placeholder tag values. They exist only while their instance does: a topic's while it is hosted,
 * a group's lag while it is measured, a share group's while it has share-partitions on this broker,
 * a client's within an hour of its last request, its quota's tokens while a quota bounds it. A
 * registry read at some moment lists them or not, so the reference takes them from here instead.
 * MetricsReferenceIT checks that this catalogue is exactly what a node registers per instance under
 * traffic of every kind, so it cannot drift from the code that registers them (brook-broker's
 * {@code PartitionLogMetrics}, {@code BrokerTopicStats}, {@code RemoteStorageMetrics} and quota
 * managers, brook-server's {@code ConsumerLagMetrics} and {@code ShareGroupMetrics}).
 */
public final class PerInstanceMetrics {
  /** The tags that name an instance: a metric with any of them is registered per instance. */
  private static final Set<String> INSTANCE_TAGS =
      Set.of("topic", "partition", "consumergroup", "group", "user", "client-id");

  private static final List<MetricName> CATALOGUE = catalogue();

  private PerInstanceMetrics() {}

  /** Whether {@code name} is one of a family registered per instance (it has an instance's tag). */
  public static boolean isPerInstance(MetricName name) {
    for (String tag : name.tags().keySet()) {
      if (INSTANCE_TAGS.contains(tag)) {
        return true;
      }
    }
    return false;
  }

  /** Every metric registered per instance, once, with placeholder tag values. */
  public static List<MetricName> all() {
    return CATALOGUE;
  }

  private static List<MetricName> catalogue() {
    List<MetricName> names = new ArrayList<>();
    // Each hosted partition's log.
    for (String log : List.of("Size", "LogStartOffset", "LogEndOffset")) {
      names.add(
          BrokerMetrics.name(
              "kafka.log",
              "Log",
              log,
              BrokerMetrics.VALUE,
              "topic",
              "<topic>",
              "partition",
              "<partition>"));
    }
    // Each topic's BrokerTopicMetrics, local and remote (the node-wide ones have no topic tag).
    List<String> meters =
        List.of(
            "BytesInPerSec",
            "MessagesInPerSec",
            "BytesOutPerSec",
            "TotalProduceRequestsPerSec",
            "FailedProduceRequestsPerSec",
            "TotalFetchRequestsPerSec",
            "FailedFetchRequestsPerSec",
            "RemoteCopyRequestsPerSec",
            "RemoteCopyErrorsPerSec",
            "RemoteCopyBytesPerSec",
            "RemoteFetchRequestsPerSec",
            "RemoteFetchErrorsPerSec",
            "RemoteFetchBytesPerSec",
            "RemoteDeleteRequestsPerSec",
            "RemoteDeleteErrorsPerSec");
    for (String meter : meters) {
      names.add(topicMetric(meter, BrokerMetrics.COUNT));
    }
    for (String gauge :
        List.of("RemoteLogSizeBytes", "RemoteCopyLagBytes", "RemoteCopyLagSegments")) {
      names.add(topicMetric(gauge, BrokerMetrics.VALUE));
    }
    // Each consumer group's lag, per partition and in sum.
    Map<String, String> groupPartition = new LinkedHashMap<>();
    groupPartition.put("consumergroup", "<consumergroup>");
    groupPartition.put("topic", "<topic>");
    groupPartition.put("partition", "<partition>");
    for (String lag : List.of("lag", "lag-seconds", "loss-forecast-seconds")) {
      names.add(new MetricName(lag, "kafka.consumergroup", "", groupPartition));
    }
    for (String lag : List.of("lag-sum", "lag-seconds-max", "loss-forecast-seconds-min")) {
      names.add(
          new MetricName(
              lag, "kafka.consumergroup", "", Map.of("consumergroup", "<consumergroup>")));
    }
    // Each share group's delivery at this broker.
    for (String share :
        List.of(
            "in-flight-records",
            "acquired-records",
            "dead-letter-pending-records",
            "oldest-acquisition-age-ms",
            "archived-records-total",
            "dead-lettered-records-total",
            "redelivered-records-total")) {
      names.add(
          new MetricName(
              share, "kafka.server.share-group-metrics", "", Map.of("group", "<group>")));
    }
    // Each client's quota sensors: what the quota bounds, its tokens while one bounds it, and the
    // time it was throttled.
    Map<String, String> client = new LinkedHashMap<>();
    client.put("user", "<user>");
    client.put("client-id", "<client-id>");
    Map<String, String> quotas = new LinkedHashMap<>();
    quotas.put("kafka.server.Produce", "byte-rate");
    quotas.put("kafka.server.Fetch", "byte-rate");
    quotas.put("kafka.server.Request", "request-time");
    quotas.put("kafka.server.ControllerMutation", "mutation-rate");
    quotas.forEach(
        (group, bounded) -> {
          for (String metric : List.of(bounded, "tokens", "throttle-time")) {
            names.add(new MetricName(metric, group, "", client));
          }
        });
    return List.copyOf(names);
  }

  private static MetricName topicMetric(String name, String attribute) {
    return BrokerMetrics.name(
        "kafka.server", "BrokerTopicMetrics", name, attribute, "topic", "<topic>");
  }
}
