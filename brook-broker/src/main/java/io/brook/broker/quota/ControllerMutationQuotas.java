package io.brook.broker.quota;

import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.RequestContext;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Quota;
import org.apache.kafka.common.metrics.QuotaViolationException;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.metrics.stats.TokenBucket;
import org.apache.kafka.common.utils.Time;

/**
 * The {@code controller_mutation_rate} quota (KIP-599), kept by the controller: partitions created
 * or deleted per second by CreateTopics, CreatePartitions and DeleteTopics, per the (user,
 * client-id) entity whose quota applies ({@link QuotaEntities}, Kafka's precedence).
 *
 * <p>Enforced with a token bucket, as Kafka does: a bucket of {@code quota × quota.window.num ×
 * window} partitions refilled at {@code quota} per second. A mutation is admitted while the bucket
 * is not in debt, even if it takes the bucket below zero (a big topic is never refused outright);
 * once in debt, new enough requests ({@link #forRequest strict}) get {@code
 * THROTTLING_QUOTA_EXCEEDED} for each topic, while older ones are admitted and only throttled. The
 * throttle time is the time the bucket needs to refill to zero. A {@link Rate} alongside reports
 * the mutation rate. Thread-safe.
 */
public final class ControllerMutationQuotas {
  private final Metrics metrics;
  private final Time time;
  private final int windowNum;
  private final int windowSizeSeconds;

  private final AppliedQuotas quotas = new AppliedQuotas();

  /**
   * @param windowNum {@code controller.quota.window.num}
   * @param windowSizeSeconds {@code controller.quota.window.size.seconds}
   */
  public ControllerMutationQuotas(
      Metrics metrics, Time time, int windowNum, int windowSizeSeconds) {
    this.metrics = metrics;
    this.time = time;
    this.windowNum = windowNum;
    this.windowSizeSeconds = windowSizeSeconds;
  }

  /** Applies the quotas of a new metadata image; cheap when they did not change. */
  public void onMetadata(MetadataImage image) {
    quotas.apply(image);
  }

  /**
   * The quota one request's mutations are charged to.
   *
   * @param strict whether the request's version knows {@code THROTTLING_QUOTA_EXCEEDED}
   *     (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+)
   */
  public MutationQuota forRequest(RequestContext context, boolean strict) {
    String user = context.principal().getName();
    QuotaEntities.Resolved resolved =
        quotas.entities().resolve(QuotaType.CONTROLLER_MUTATION.key, user, context.clientId());
    if (resolved.unlimited()) {
      return MutationQuota.UNLIMITED;
    }
    return new Charged(sensors(resolved), strict);
  }

  private Sensors sensors(QuotaEntities.Resolved resolved) {
    QuotaType type = QuotaType.CONTROLLER_MUTATION;
    Map<String, String> tags = resolved.metricTags();
    String suffix = resolved.userTag() + ":" + resolved.clientIdTag();
    MetricConfig bucketConfig =
        new MetricConfig()
            .timeWindow(windowSizeSeconds, TimeUnit.SECONDS)
            .samples(windowNum)
            .quota(Quota.upperBound(resolved.bound()));
    MetricConfig rateConfig =
        new MetricConfig().timeWindow(windowSizeSeconds, TimeUnit.SECONDS).samples(windowNum);
    synchronized (metrics) {
      Sensor sensor =
          metrics.sensor(type.group + "-" + suffix, null, QuotaSensors.INACTIVE_SENSOR_SECONDS);
      var rateName =
          metrics.metricName(
              type.metric, type.group, "Tracking mutation-rate per user/client-id", tags);
      if (metrics.metric(rateName) == null) {
        sensor.add(rateName, new Rate(), rateConfig);
      }
      var tokensName =
          metrics.metricName(
              "tokens", type.group, "Tracking remaining tokens per user/client-id", tags);
      KafkaMetric tokens = metrics.metric(tokensName);
      if (tokens == null) {
        sensor.add(tokensName, new TokenBucket(), bucketConfig);
      } else {
        tokens.config(bucketConfig); // the entity's quota may have changed
      }
      return new Sensors(sensor, QuotaSensors.throttleTime(metrics, type, suffix, tags));
    }
  }

  private record Sensors(Sensor mutations, Sensor throttleTime) {}

  /** One request's charge against a bounded quota. */
  private final class Charged implements MutationQuota {
    private final Sensors sensors;
    private final boolean strict;
    private long throttleTimeMs;

    Charged(Sensors sensors, boolean strict) {
      this.sensors = sensors;
      this.strict = strict;
    }

    @Override
    public boolean admit(int partitions) {
      long nowMs = time.milliseconds();
      Sensor sensor = sensors.mutations();
      synchronized (sensor) {
        try {
          if (strict) {
            sensor.checkQuotas(nowMs); // in debt: refused before anything is recorded
            sensor.record(partitions, nowMs, false);
          } else {
            sensor.record(partitions, nowMs, true);
          }
          return true;
        } catch (QuotaViolationException e) {
          throttleTimeMs = Math.max(throttleTimeMs, ThrottleTime.ofDebt(e));
          sensors.throttleTime().record(throttleTimeMs, nowMs);
          return !strict;
        }
      }
    }

    @Override
    public int throttleTimeMs() {
      return (int) Math.min(Integer.MAX_VALUE, throttleTimeMs);
    }
  }
}
