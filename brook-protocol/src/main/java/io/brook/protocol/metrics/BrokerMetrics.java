package io.brook.protocol.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Meter;
import org.apache.kafka.common.metrics.stats.Percentile;
import org.apache.kafka.common.metrics.stats.Percentiles;
import org.apache.kafka.common.utils.Time;

/**
 * One node's metrics registry: a kafka-clients {@link Metrics} (docs/adr/0006-metrics.md says why)
 * that every component registers into, published on JMX under Kafka's object names ({@link
 * KafkaJmxReporter}) and on the admin listener's {@code /metrics} in the Prometheus format.
 *
 * <p>Names follow one convention so both views derive from them: a metric's group is the JMX domain
 * and type joined by a dot ({@code kafka.server.ReplicaManager}); Kafka's Yammer-style metrics
 * carry their name in a {@code name} tag and their JMX attribute ({@code Value}, {@code Count},
 * {@code OneMinuteRate}, {@code Mean}, {@code 99thPercentile}...) as the metric name, so {@code
 * kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions} reads as in Kafka; metrics Kafka
 * itself keeps in kafka-clients' style (the coordinators') use their own names and tags.
 *
 * <p>Any component may register metrics: gauges through {@link #gauge}, event meters through {@link
 * #meter}, or its own {@link Sensor}s on {@link #registry()}.
 */
public final class BrokerMetrics implements AutoCloseable {
  /** The attribute of a gauge. */
  public static final String VALUE = "Value";

  /** The attributes of a meter: events since start, and events per second over about a minute. */
  public static final String COUNT = "Count";

  public static final String ONE_MINUTE_RATE = "OneMinuteRate";

  /** The attributes of a histogram, in milliseconds. */
  public static final String MEAN = "Mean";

  public static final String MAX = "Max";

  /** Histogram percentiles, as Yammer names them; the Prometheus view turns them into quantiles. */
  public static final List<String> PERCENTILES =
      List.of("50thPercentile", "99thPercentile", "999thPercentile");

  private static final double[] PERCENTILE_VALUES = {50, 99, 99.9};

  /** Upper bound of the histograms' buckets, in milliseconds: slower requests count as this. */
  private static final int HISTOGRAM_MAX_MS = 30_000;

  /**
   * Bytes of a histogram's buckets (four bytes each: 1,000 buckets), widening linearly from about
   * 0.06 ms at 0 to about 60 ms at 30 s, so fast requests are told apart finely.
   */
  private static final int HISTOGRAM_BYTES = 4_000;

  private final Metrics metrics;

  public BrokerMetrics(Time time) {
    // Two 30-second windows: the rates read as a one-minute rate, like Yammer's OneMinuteRate.
    MetricConfig config = new MetricConfig().samples(2).timeWindow(30, TimeUnit.SECONDS);
    // A mutable list: Metrics.addReporter adds to it (a test records every registration so).
    this.metrics = new Metrics(config, new ArrayList<>(List.of(new KafkaJmxReporter())), time);
  }

  /** The registry itself, for components that build their own sensors and stats. */
  public Metrics registry() {
    return metrics;
  }

  /**
   * The name of a Yammer-style metric: {@code domain:type=<type>,name=<name>,<tags>} attribute
   * {@code attribute}.
   *
   * @param tags tag names and values, alternating
   */
  public static MetricName name(
      String domain, String type, String name, String attribute, String... tags) {
    Map<String, String> map = new LinkedHashMap<>();
    map.put("name", name);
    for (int i = 0; i + 1 < tags.length; i += 2) {
      map.put(tags[i], tags[i + 1]);
    }
    return new MetricName(attribute, domain + "." + type, "", map);
  }

  /** Registers a gauge read when scraped; a gauge already registered under the name is replaced. */
  public void gauge(MetricName name, Supplier<? extends Number> value) {
    metrics.removeMetric(name);
    newGauge(name, value);
  }

  /**
   * As {@link #gauge(MetricName, Supplier)} for a name the caller knows is not registered: skips
   * the removal, which for tens of thousands of per-partition gauges is a noticeable share of
   * creating their topics.
   *
   * @throws IllegalArgumentException if {@code name} is registered
   */
  public void newGauge(MetricName name, Supplier<? extends Number> value) {
    metrics.addMetric(name, (Gauge<Number>) (config, now) -> value.get());
  }

  /**
   * A Yammer-style gauge, {@code domain:type=<type>,name=<name>,<tags>} attribute {@code Value}.
   */
  public void gauge(
      String domain, String type, String name, Supplier<? extends Number> value, String... tags) {
    gauge(name(domain, type, name, VALUE, tags), value);
  }

  /**
   * A Yammer-style meter, {@code domain:type=<type>,name=<name>,<tags>} with attributes {@code
   * Count} and {@code OneMinuteRate}: {@link Sensor#record()} marks one event, {@link
   * Sensor#record(double)} that many. Asking again returns the same sensor.
   */
  public Sensor meter(String domain, String type, String name, String... tags) {
    return sensor(
        sensorName(domain, type, name, tags),
        sensor ->
            sensor.add(
                new Meter(
                    TimeUnit.SECONDS,
                    name(domain, type, name, ONE_MINUTE_RATE, tags),
                    name(domain, type, name, COUNT, tags))));
  }

  /**
   * A Yammer-style histogram of milliseconds, {@code domain:type=<type>,name=<name>,<tags>} with
   * attributes {@code Count}, {@code Mean}, {@code Max} and the {@link #PERCENTILES}. Its buckets
   * are allocated once, here; recording allocates nothing.
   */
  public Sensor histogram(String domain, String type, String name, String... tags) {
    return sensor(
        sensorName(domain, type, name, tags),
        sensor -> {
          sensor.add(name(domain, type, name, COUNT, tags), new CumulativeCount());
          sensor.add(name(domain, type, name, MEAN, tags), new Avg());
          sensor.add(name(domain, type, name, MAX, tags), new Max());
          Percentile[] percentiles = new Percentile[PERCENTILES.size()];
          for (int i = 0; i < percentiles.length; i++) {
            percentiles[i] =
                new Percentile(
                    name(domain, type, name, PERCENTILES.get(i), tags), PERCENTILE_VALUES[i]);
          }
          sensor.add(
              new Percentiles(
                  HISTOGRAM_BYTES, HISTOGRAM_MAX_MS, Percentiles.BucketSizing.LINEAR, percentiles));
        });
  }

  /**
   * Unregisters the meter or histogram ({@link #meter}, {@link #histogram}) and the gauge ({@link
   * #gauge}) of that name and tags, whichever exist: a topic's metrics when it is deleted.
   */
  public synchronized void remove(String domain, String type, String name, String... tags) {
    metrics.removeSensor(sensorName(domain, type, name, tags));
    metrics.removeMetric(name(domain, type, name, VALUE, tags));
  }

  /** The sensor of that name, made with {@code stats} the first time it is asked for. */
  private synchronized Sensor sensor(String sensorName, Consumer<Sensor> stats) {
    Sensor existing = metrics.getSensor(sensorName);
    if (existing != null) {
      return existing;
    }
    Sensor sensor = metrics.sensor(sensorName);
    stats.accept(sensor);
    return sensor;
  }

  /** Every metric registered, for exporters. */
  public Map<MetricName, KafkaMetric> all() {
    return metrics.metrics();
  }

  private static String sensorName(String domain, String type, String name, String... tags) {
    return domain
        + ":type="
        + type
        + ",name="
        + name
        + (tags.length == 0 ? "" : "," + String.join(",", tags));
  }

  /** Unregisters every metric, from JMX too. */
  @Override
  public void close() {
    metrics.close();
  }
}
