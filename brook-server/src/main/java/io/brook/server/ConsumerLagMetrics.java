package io.brook.server;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.group.lag.GroupLag;
import io.brook.coordinator.group.lag.GroupPositions;
import io.brook.coordinator.group.lag.PartitionLag;
import io.brook.coordinator.log.PartitionEnds;
import io.brook.protocol.metrics.BrokerMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the lag of every group this broker coordinates, refreshed every {@code
 * brook.metrics.lag.interval.ms} by one task at a time on the node's scheduler: the group shards
 * copy their committed positions on their own threads, the leaders of the partitions other brokers
 * lead are asked for theirs ({@link LeaderLagReads}), and the lag (offsets, and the timestamp of
 * the batch at each committed offset, found through the offset index and read from its header) is
 * computed here, never on an event loop or a coordinator thread.
 *
 * <p>Metric group {@code kafka.consumergroup}, named as the widely used Kafka exporter names its
 * lag so existing dashboards find it; a partition's series are tagged {@code consumergroup}, {@code
 * topic}, {@code partition}:
 *
 * <ul>
 *   <li>{@code lag}: records between the committed offset and the high watermark;
 *   <li>{@code lag-seconds}: age of the oldest record the group has not consumed;
 *   <li>{@code loss-forecast-seconds}: when retention deletes that record at the current
 *       consumption rate; absent when it never will.
 * </ul>
 *
 * Only the first {@code brook.metrics.lag.max.series} group-partitions (by group id, topic,
 * partition) get their own series; every group also gets {@code lag-sum}, {@code lag-seconds-max}
 * and {@code loss-forecast-seconds-min}, tagged {@code consumergroup} only. A figure this broker
 * could not measure this round (the partition's leader did not answer in time) is NaN, which {@code
 * /metrics} leaves out.
 */
final class ConsumerLagMetrics implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerLagMetrics.class);
  static final String GROUP = "kafka.consumergroup";

  private final BrokerMetrics metrics;
  private final GroupCoordinator coordinator;
  private final LeaderLagReads leaders;
  private final ScheduledExecutorService scheduler;
  private final long intervalMs;
  private final int maxSeries;
  private final Time time;

  /** The latest figures; gauges read them when scraped. */
  private volatile Map<MetricName, Double> values = Map.of();

  /** Names registered in {@link #metrics}; guarded by this. */
  private final Set<MetricName> registered = new HashSet<>();

  private volatile boolean closed;

  private ConsumerLagMetrics(
      BrokerMetrics metrics,
      GroupCoordinator coordinator,
      LeaderLagReads leaders,
      ScheduledExecutorService scheduler,
      long intervalMs,
      int maxSeries,
      Time time) {
    this.metrics = metrics;
    this.coordinator = coordinator;
    this.leaders = leaders;
    this.scheduler = scheduler;
    this.intervalMs = intervalMs;
    this.maxSeries = maxSeries;
    this.time = time;
  }

  static ConsumerLagMetrics start(
      BrokerMetrics metrics,
      GroupCoordinator coordinator,
      LeaderLagReads leaders,
      ScheduledExecutorService scheduler,
      long intervalMs,
      int maxSeries) {
    ConsumerLagMetrics lag =
        new ConsumerLagMetrics(
            metrics, coordinator, leaders, scheduler, intervalMs, maxSeries, Time.SYSTEM);
    lag.scheduleNext();
    return lag;
  }

  /** The next refresh starts an interval after the last one finished, so only one ever runs. */
  private void scheduleNext() {
    if (closed) {
      return;
    }
    try {
      scheduler.schedule(this::refresh, intervalMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // The node is stopping.
    }
  }

  private void refresh() {
    coordinator
        .positions()
        .thenCompose(
            groups -> leaders.read(groups).thenApply(elsewhere -> Map.entry(groups, elsewhere)))
        .whenComplete(
            (round, error) -> {
              // Back on the scheduler: this completed on a coordinator thread or an event loop.
              try {
                scheduler.execute(
                    () -> {
                      try {
                        if (error != null) {
                          LOG.debug("Reading group positions for the lag metrics failed", error);
                        } else {
                          publish(round.getKey(), round.getValue());
                        }
                      } catch (RuntimeException e) {
                        LOG.warn("Computing the consumer-group lag metrics failed", e);
                      } finally {
                        scheduleNext();
                      }
                    });
              } catch (RejectedExecutionException e) {
                // The node is stopping.
              }
            });
  }

  /** Under the lock with {@link #close}: nothing registers once the node closes its metrics. */
  private synchronized void publish(List<GroupPositions> groups, PartitionEnds elsewhere) {
    if (closed) {
      return;
    }
    long now = time.milliseconds();
    List<GroupPositions> sorted = new ArrayList<>(groups);
    sorted.sort(Comparator.comparing(GroupPositions::groupId));
    Map<MetricName, Double> next = new HashMap<>();
    int series = 0;
    for (GroupPositions positions : sorted) {
      GroupLag lag = coordinator.lag(positions, now, elsewhere);
      String group = lag.groupId();
      summary(next, group, lag);
      for (PartitionLag partition : lag.partitions()) {
        if (series >= maxSeries) {
          break;
        }
        series++;
        // Ordered: the JMX name lists the tags in this order.
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("consumergroup", group);
        tags.put("topic", partition.topicPartition().topic());
        tags.put("partition", Integer.toString(partition.topicPartition().partition()));
        boolean measured = partition.logEndOffset() >= 0;
        next.put(name("lag", tags), measured ? partition.lagRecords() : Double.NaN);
        next.put(name("lag-seconds", tags), seconds(partition.lagTime()));
        next.put(name("loss-forecast-seconds", tags), seconds(partition.dataLossIn()));
      }
    }
    values = next;
    for (MetricName name : next.keySet()) {
      if (registered.add(name)) {
        metrics.gauge(name, () -> values.getOrDefault(name, Double.NaN));
      }
    }
    registered.removeIf(
        name -> {
          if (next.containsKey(name)) {
            return false;
          }
          metrics.registry().removeMetric(name);
          return true;
        });
  }

  private static void summary(Map<MetricName, Double> next, String group, GroupLag lag) {
    Map<String, String> tags = Map.of("consumergroup", group);
    boolean measured = lag.partitions().stream().anyMatch(p -> p.logEndOffset() >= 0);
    long sum =
        lag.partitions().stream()
            .filter(p -> p.logEndOffset() >= 0)
            .mapToLong(PartitionLag::lagRecords)
            .sum();
    next.put(name("lag-sum", tags), measured ? sum : Double.NaN);
    next.put(name("lag-seconds-max", tags), seconds(lag.maxLagTime()));
    next.put(name("loss-forecast-seconds-min", tags), seconds(lag.dataLossIn()));
  }

  private static double seconds(Optional<Duration> duration) {
    return duration.map(d -> d.toMillis() / 1000.0).orElse(Double.NaN);
  }

  private static MetricName name(String metric, Map<String, String> tags) {
    return new MetricName(metric, GROUP, "", tags);
  }

  /** Stops refreshing, unregisters the series and closes the connections to the leaders. */
  @Override
  public synchronized void close() {
    closed = true;
    registered.forEach(metrics.registry()::removeMetric);
    registered.clear();
    leaders.close();
  }
}
