package io.brook.broker.quota;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;

/** The sensors every quota entity has, with Kafka's names. Callers hold the registry's lock. */
final class QuotaSensors {
  /** Kafka drops a client's sensors after an hour without requests. */
  static final long INACTIVE_SENSOR_SECONDS = TimeUnit.HOURS.toSeconds(1);

  private QuotaSensors() {}

  /**
   * The entity's {@code throttle-time} (average ms) in the quota's group, created or shared.
   *
   * @param suffix {@code user:client-id} of the entity, naming its sensors
   */
  static Sensor throttleTime(
      Metrics metrics, QuotaType type, String suffix, Map<String, String> tags) {
    Sensor throttle =
        metrics.sensor(type.group + "ThrottleTime-" + suffix, null, INACTIVE_SENSOR_SECONDS);
    var name =
        metrics.metricName(
            "throttle-time", type.group, "Tracking average throttle-time per user/client-id", tags);
    if (metrics.metric(name) == null) {
      throttle.add(name, new Avg());
    }
    return throttle;
  }
}
