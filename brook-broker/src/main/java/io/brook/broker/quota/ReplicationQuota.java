package io.brook.broker.quota;

import io.brook.metadata.image.MetadataImage;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Quota;
import org.apache.kafka.common.metrics.QuotaViolationException;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.utils.Time;

/**
 * One side of this broker's replication throttle (KIP-73), as Kafka keeps it: the bytes of the
 * throttled replicas this broker sends as leader ({@link Side#LEADER}) or fetches as follower
 * ({@link Side#FOLLOWER}), measured as one {@link Rate} over {@code replication.quota.window.num}
 * samples of {@code replication.quota.window.size.seconds} and bounded by the dynamic broker config
 * {@code leader/follower.replication.throttled.rate} (this broker's, else the cluster default).
 * Which replicas are throttled is the topic config {@code
 * leader/follower.replication.throttled.replicas}: {@code *}, or {@code partition:broker} pairs
 * naming this broker.
 *
 * <p>The callers decide what to hold back, as Kafka does: a replica outside the ISR is not read (on
 * the leader) or not fetched (on the follower) while {@link #isQuotaExceeded} holds; the bytes of
 * every throttled replica, in sync or not, are {@link #record recorded}. Follows the metadata image
 * ({@link #onMetadata}); thread-safe.
 */
public final class ReplicationQuota {
  /** The two sides, with Kafka's config names and metric group. */
  public enum Side {
    LEADER(
        "leader.replication.throttled.rate",
        "leader.replication.throttled.replicas",
        "LeaderReplication"),
    FOLLOWER(
        "follower.replication.throttled.rate",
        "follower.replication.throttled.replicas",
        "FollowerReplication");

    /** The dynamic broker config bounding the rate, bytes per second. */
    public final String rateConfig;

    /** The topic config listing the throttled replicas. */
    public final String replicasConfig;

    final String group;

    Side(String rateConfig, String replicasConfig, String group) {
      this.rateConfig = rateConfig;
      this.replicasConfig = replicasConfig;
      this.group = group;
    }
  }

  /** Every partition of a topic ({@code *}). */
  private static final Set<Integer> ALL = Set.of(-1);

  private final Side side;
  private final int brokerId;
  private final Time time;
  private final int windowNum;
  private final int windowSizeSeconds;
  private final Sensor sensor;
  private final KafkaMetric rate;

  private volatile double bound = Double.MAX_VALUE;
  private volatile Map<String, Set<Integer>> throttled = Map.of();
  private volatile Map<String, Map<String, String>> appliedTopicConfigs;
  private volatile Map<String, Map<String, String>> appliedBrokerConfigs;

  /**
   * @param windowNum {@code replication.quota.window.num}
   * @param windowSizeSeconds {@code replication.quota.window.size.seconds}
   */
  public ReplicationQuota(
      Side side, int brokerId, Metrics metrics, Time time, int windowNum, int windowSizeSeconds) {
    this.side = side;
    this.brokerId = brokerId;
    this.time = time;
    this.windowNum = windowNum;
    this.windowSizeSeconds = windowSizeSeconds;
    synchronized (metrics) {
      this.sensor = metrics.sensor(side.group + "-replication-quota");
      var name =
          metrics.metricName(
              "byte-rate", side.group, "Tracking byte-rate for " + side.group, Map.of());
      KafkaMetric existing = metrics.metric(name);
      if (existing == null) {
        sensor.add(name, new Rate(), config(Double.MAX_VALUE));
        existing = metrics.metric(name);
      }
      this.rate = existing;
    }
  }

  /** A quota that never throttles: for brokers and tests without replication throttles. */
  public static ReplicationQuota none(Side side) {
    return new ReplicationQuota(side, -1, new Metrics(), Time.SYSTEM, 11, 1);
  }

  private MetricConfig config(double quota) {
    MetricConfig config =
        new MetricConfig().timeWindow(windowSizeSeconds, TimeUnit.SECONDS).samples(windowNum);
    return quota == Double.MAX_VALUE ? config : config.quota(Quota.upperBound(quota));
  }

  /** Applies the throttle rate and throttled replicas of a new metadata image. */
  public void onMetadata(MetadataImage image) {
    Map<String, Map<String, String>> brokers = image.configs(ConfigResource.Type.BROKER);
    Map<String, Map<String, String>> topics = image.configs(ConfigResource.Type.TOPIC);
    if (brokers == appliedBrokerConfigs && topics == appliedTopicConfigs) {
      return;
    }
    synchronized (this) {
      if (brokers != appliedBrokerConfigs) {
        double next = rate(brokers);
        if (next != bound) {
          bound = next;
          rate.config(config(next));
        }
        appliedBrokerConfigs = brokers;
      }
      if (topics != appliedTopicConfigs) {
        throttled = throttledPartitions(topics);
        appliedTopicConfigs = topics;
      }
    }
  }

  /** This broker's rate, else the cluster default's, else unbounded. */
  private double rate(Map<String, Map<String, String>> brokers) {
    for (String name : new String[] {Integer.toString(brokerId), ""}) {
      String value = brokers.getOrDefault(name, Map.of()).get(side.rateConfig);
      if (value != null) {
        try {
          long bytes = Long.parseLong(value.trim());
          return bytes >= Long.MAX_VALUE ? Double.MAX_VALUE : bytes;
        } catch (NumberFormatException e) {
          // validated by the controller; an unreadable value leaves replication unthrottled
          return Double.MAX_VALUE;
        }
      }
    }
    return Double.MAX_VALUE;
  }

  /** The partitions whose replicas on this broker the topic configs throttle, by topic. */
  private Map<String, Set<Integer>> throttledPartitions(Map<String, Map<String, String>> topics) {
    Map<String, Set<Integer>> result = new HashMap<>();
    String self = Integer.toString(brokerId);
    topics.forEach(
        (topic, configs) -> {
          String value = configs.get(side.replicasConfig);
          if (value == null || value.isBlank()) {
            return;
          }
          Set<Integer> partitions = new HashSet<>();
          for (String entry : value.split(",")) {
            String trimmed = entry.trim();
            if (trimmed.equals("*")) {
              result.put(topic, ALL);
              return;
            }
            int colon = trimmed.indexOf(':');
            if (colon > 0 && trimmed.substring(colon + 1).trim().equals(self)) {
              try {
                partitions.add(Integer.parseInt(trimmed.substring(0, colon).trim()));
              } catch (NumberFormatException e) {
                // validated by the controller; an unreadable entry throttles nothing
              }
            }
          }
          if (!partitions.isEmpty()) {
            result.put(topic, Set.copyOf(partitions));
          }
        });
    return Map.copyOf(result);
  }

  /** Whether {@code tp}'s replication on this broker is throttled on this side. */
  public boolean isThrottled(TopicPartition tp) {
    Map<String, Set<Integer>> current = throttled;
    if (current.isEmpty()) {
      return false;
    }
    Set<Integer> partitions = current.get(tp.topic());
    return partitions != null && (partitions == ALL || partitions.contains(tp.partition()));
  }

  /** Whether the throttled replicas' rate is over the bound: hold back those outside the ISR. */
  public boolean isQuotaExceeded() {
    if (bound == Double.MAX_VALUE) {
      return false;
    }
    try {
      sensor.checkQuotas(time.milliseconds());
      return false;
    } catch (QuotaViolationException e) {
      return true;
    }
  }

  /** Counts bytes of throttled replicas sent (leader) or fetched (follower). */
  public void record(long bytes) {
    if (bytes > 0) {
      sensor.record(bytes, time.milliseconds(), false);
    }
  }

  /** The rate the throttled replicas are bounded to, bytes per second; for tests and logs. */
  public double bound() {
    return bound;
  }
}
