package io.brook.server.admin;

import io.brook.protocol.metrics.BrokerMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * Turns every metric of a {@link BrokerMetrics} registry into Prometheus samples, named as the
 * Prometheus JMX exporter's usual Kafka rules name Kafka's MBeans, so dashboards written for them
 * work (docs/operations.md has the rule):
 *
 * <ul>
 *   <li>a Yammer-style metric ({@code kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec}):
 *       {@code <domain>_<type>_<name>}, lower case, {@code PerSec} dropped, every other character
 *       that Prometheus does not allow an underscore; {@code Count} is a counter ({@code
 *       kafka_server_brokertopicmetrics_bytesin_total}), {@code Value} a gauge, {@code Mean} and
 *       {@code Max} gauges with that suffix, percentiles the gauge with a {@code quantile} label;
 *       one-minute rates are left out (Prometheus computes rates from the counters);
 *   <li>a kafka-clients-style metric ({@code kafka.server:type=group-coordinator-metrics} attribute
 *       {@code num-partitions}): {@code <domain>_<type>_<attribute>}, a counter when the attribute
 *       ends in {@code -total};
 *   <li>the other tags are labels ({@code topic}, {@code request}, {@code logDirectory}...).
 * </ul>
 */
final class PrometheusBridge implements MultiCollector {
  private final BrokerMetrics metrics;

  PrometheusBridge(BrokerMetrics metrics) {
    this.metrics = metrics;
  }

  /** A sample on its way into a family. */
  private record Sample(boolean counter, Labels labels, double value) {}

  @Override
  public MetricSnapshots collect() {
    Map<String, List<Sample>> families = new TreeMap<>();
    for (KafkaMetric metric : metrics.all().values()) {
      Object value = metric.metricValue();
      if (!(value instanceof Number number) || Double.isNaN(number.doubleValue())) {
        continue;
      }
      MetricName name = metric.metricName();
      String family = familyName(name);
      if (family == null) {
        continue;
      }
      boolean counter = isCounter(name);
      families
          .computeIfAbsent(family, f -> new ArrayList<>())
          .add(new Sample(counter, labels(name), number.doubleValue()));
    }
    MetricSnapshots.Builder snapshots = MetricSnapshots.builder();
    for (Map.Entry<String, List<Sample>> family : families.entrySet()) {
      List<Sample> samples = family.getValue();
      if (samples.get(0).counter()) {
        CounterSnapshot.Builder counter = CounterSnapshot.builder().name(family.getKey());
        for (Sample sample : samples) {
          counter.dataPoint(
              CounterDataPointSnapshot.builder()
                  .labels(sample.labels())
                  .value(Math.max(0, sample.value()))
                  .build());
        }
        snapshots.metricSnapshot(counter.build());
      } else {
        GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(family.getKey());
        for (Sample sample : samples) {
          gauge.dataPoint(
              GaugeDataPointSnapshot.builder()
                  .labels(sample.labels())
                  .value(sample.value())
                  .build());
        }
        snapshots.metricSnapshot(gauge.build());
      }
    }
    return snapshots.build();
  }

  /** The family's name (a counter's without {@code _total}), or null for what is left out. */
  static String familyName(MetricName name) {
    String group = name.group().replace('.', '_');
    String yammer = name.tags().get("name");
    String base;
    if (yammer == null) {
      String attribute = name.name();
      if (attribute.endsWith("-total")) {
        attribute = attribute.substring(0, attribute.length() - "-total".length());
      }
      base = group + "_" + attribute;
    } else {
      String metric = yammer.endsWith("PerSec") ? yammer.substring(0, yammer.length() - 6) : yammer;
      base = group + "_" + metric;
      String attribute = name.name();
      if (attribute.equals(BrokerMetrics.ONE_MINUTE_RATE)) {
        return null;
      }
      if (attribute.equals(BrokerMetrics.MEAN)) {
        base += "_mean";
      } else if (attribute.equals(BrokerMetrics.MAX)) {
        base += "_max";
      } else if (attribute.equals(BrokerMetrics.COUNT) && !yammer.endsWith("PerSec")) {
        return null; // a histogram's count: the API's RequestsPerSec counts the same
      }
    }
    return PrometheusNaming.sanitizeMetricName(base.toLowerCase(Locale.ROOT).replace('-', '_'));
  }

  static boolean isCounter(MetricName name) {
    String yammer = name.tags().get("name");
    if (yammer == null) {
      return name.name().endsWith("-total");
    }
    return name.name().equals(BrokerMetrics.COUNT) && yammer.endsWith("PerSec");
  }

  private static Labels labels(MetricName name) {
    Labels.Builder labels = Labels.builder();
    for (Map.Entry<String, String> tag : name.tags().entrySet()) {
      if (!tag.getKey().equals("name")) {
        labels.label(PrometheusNaming.sanitizeLabelName(tag.getKey()), tag.getValue());
      }
    }
    int percentile = BrokerMetrics.PERCENTILES.indexOf(name.name());
    if (percentile >= 0) {
      labels.label("quantile", QUANTILES[percentile]);
    }
    return labels.build();
  }

  private static final String[] QUANTILES = {"0.5", "0.99", "0.999"};
}
