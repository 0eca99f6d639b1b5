package io.brook.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.metrics.BrokerMetrics;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/** The naming rule of docs/operations.md, on each kind of metric the registry holds. */
class PrometheusBridgeTest {

  @Test
  void kafkasMetricsGetTheJmxExportersNames() throws Exception {
    try (BrokerMetrics metrics = new BrokerMetrics(Time.SYSTEM)) {
      // Given a meter, a gauge, a histogram and a kafka-clients-style metric
      metrics.meter("kafka.server", "BrokerTopicMetrics", "BytesInPerSec", "topic", "t").record(42);
      metrics.gauge("kafka.server", "ReplicaManager", "UnderReplicatedPartitions", () -> 3);
      metrics
          .histogram("kafka.network", "RequestMetrics", "TotalTimeMs", "request", "Produce")
          .record(5);
      metrics.gauge(
          new MetricName(
              "load-failures-total", "kafka.server.group-coordinator-metrics", "", Map.of()),
          () -> 2L);

      // When
      String text = write(metrics);

      // Then
      assertThat(text)
          .contains("# TYPE kafka_server_brokertopicmetrics_bytesin_total counter")
          .contains("kafka_server_brokertopicmetrics_bytesin_total{topic=\"t\"} 42.0")
          .contains("kafka_server_replicamanager_underreplicatedpartitions 3.0")
          .contains("kafka_network_requestmetrics_totaltimems_mean{request=\"Produce\"} 5.0")
          .contains("kafka_network_requestmetrics_totaltimems_max{request=\"Produce\"} 5.0")
          .contains(
              "kafka_network_requestmetrics_totaltimems{quantile=\"0.99\",request=\"Produce\"}")
          .contains("kafka_server_group_coordinator_metrics_load_failures_total 2.0")
          // rates are left to Prometheus; a histogram's count to RequestsPerSec
          .doesNotContain("bytesin_oneminuterate")
          .doesNotContain("totaltimems_count");
    }
  }

  private static String write(BrokerMetrics metrics) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, new PrometheusBridge(metrics).collect());
    return out.toString(StandardCharsets.UTF_8);
  }
}
