package io.brook.server;

import io.brook.coordinator.runtime.CoordinatorRuntime;
import io.brook.coordinator.runtime.CoordinatorRuntimeMetrics;
import io.brook.protocol.metrics.BrokerMetrics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.MetricName;

/**
 * Registers a coordinator runtime's health in the node's {@link BrokerMetrics}, in Kafka's
 * kafka-clients style for its coordinator metrics (docs/metrics.md lists them): group {@code
 * kafka.server:type=<group>} with tag {@code state=loading|active|failed} and metric {@code
 * num-partitions}, and without tags Kafka's {@code event-queue-size} and Brook's cumulative {@code
 * load-skipped-records-total}, {@code load-failures-total} and {@code rejected-requests-total}.
 * Values are read when asked.
 */
final class CoordinatorMetrics {
  private CoordinatorMetrics() {}

  /**
   * @param group Kafka's metrics group, {@code group-coordinator-metrics} or {@code
   *     transaction-coordinator-metrics}
   */
  static void register(BrokerMetrics metrics, String group, CoordinatorRuntime<?> runtime) {
    String metricGroup = "kafka.server." + group;
    for (String state : List.of("loading", "active", "failed")) {
      metrics.gauge(
          new MetricName("num-partitions", metricGroup, "", Map.of("state", state)),
          () -> runtime.partitionCount(state));
    }
    CoordinatorRuntimeMetrics counts = runtime.metrics();
    Map<String, Supplier<Number>> values = new LinkedHashMap<>();
    values.put("event-queue-size", runtime::eventQueueSize);
    values.put("load-skipped-records-total", counts::loadSkippedRecords);
    values.put("load-failures-total", counts::loadFailures);
    values.put("rejected-requests-total", counts::rejectedRequests);
    values.forEach(
        (name, value) -> metrics.gauge(new MetricName(name, metricGroup, "", Map.of()), value));
  }
}
