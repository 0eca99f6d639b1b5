package io.brook.server;

import io.brook.broker.share.ShareGroupStats;
import io.brook.broker.share.SharePartitionManager;
import io.brook.broker.time.Scheduler;
import io.brook.protocol.metrics.BrokerMetrics;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.MetricName;

/**
 * Each share group's delivery at this broker, over the share-partitions it leads, in the node's
 * {@link BrokerMetrics} (docs/metrics.md lists them): group {@code
 * kafka.server:type=share-group-metrics} with tag {@code group}. The gauges (records in flight,
 * acquired, owed to the dead-letter topic, age of the oldest acquisition) come from one pass over
 * the share-partitions, made once a second by a task on the scheduler and read from there; the
 * counters (archived, written to the dead-letter topic, redelivered) are the group's running
 * totals. A group's metrics appear with its first share-partition here and go with its last.
 */
final class ShareGroupMetrics {
  static final String GROUP = "kafka.server.share-group-metrics";
  private static final long REFRESH_MS = 1_000;

  private final BrokerMetrics metrics;
  private final SharePartitionManager shares;
  private final Set<String> registered = new HashSet<>();
  private volatile Map<String, SharePartitionManager.GroupGauges> gauges = Map.of();

  private ShareGroupMetrics(BrokerMetrics metrics, SharePartitionManager shares) {
    this.metrics = metrics;
    this.shares = shares;
  }

  static void register(BrokerMetrics metrics, SharePartitionManager shares, Scheduler scheduler) {
    ShareGroupMetrics m = new ShareGroupMetrics(metrics, shares);
    scheduler.schedulePeriodic("share-group-metrics", m::refresh, 0, REFRESH_MS);
  }

  private synchronized void refresh() {
    Map<String, SharePartitionManager.GroupGauges> now = shares.groupGauges();
    gauges = now;
    for (String group : now.keySet()) {
      if (registered.add(group)) {
        names(group).forEach((name, value) -> metrics.gauge(name, () -> value.apply(group)));
      }
    }
    for (String group : Set.copyOf(registered)) {
      if (!now.containsKey(group)) {
        registered.remove(group);
        names(group).keySet().forEach(name -> metrics.registry().removeMetric(name));
      }
    }
  }

  private long gauge(String group, Function<SharePartitionManager.GroupGauges, Long> value) {
    SharePartitionManager.GroupGauges g = gauges.get(group);
    return g == null ? 0 : value.apply(g);
  }

  /** The group's metrics and how each reads its value. */
  private Map<MetricName, Function<String, Number>> names(String group) {
    Map<MetricName, Function<String, Number>> out = new LinkedHashMap<>();
    Map<String, String> tags = Map.of("group", group);
    out.put(
        new MetricName("in-flight-records", GROUP, "", tags),
        g -> gauge(g, SharePartitionManager.GroupGauges::inFlight));
    out.put(
        new MetricName("acquired-records", GROUP, "", tags),
        g -> gauge(g, SharePartitionManager.GroupGauges::acquired));
    out.put(
        new MetricName("dead-letter-pending-records", GROUP, "", tags),
        g -> gauge(g, SharePartitionManager.GroupGauges::deadLetterPending));
    out.put(
        new MetricName("oldest-acquisition-age-ms", GROUP, "", tags),
        g -> gauge(g, SharePartitionManager.GroupGauges::oldestAcquisitionAgeMs));
    ShareGroupStats stats = shares.stats(group);
    out.put(new MetricName("archived-records-total", GROUP, "", tags), g -> stats.archivedTotal());
    out.put(
        new MetricName("dead-lettered-records-total", GROUP, "", tags),
        g -> stats.deadLetteredTotal());
    out.put(
        new MetricName("redelivered-records-total", GROUP, "", tags),
        g -> stats.redeliveredTotal());
    return out;
  }
}
