package io.brook.broker.quota;

import io.brook.metadata.quota.QuotaKeys;

/** The client quotas a broker enforces, with Kafka's metric group and metric names. */
enum QuotaType {
  PRODUCE("kafka.server.Produce", QuotaKeys.PRODUCER_BYTE_RATE, "byte-rate"),
  FETCH("kafka.server.Fetch", QuotaKeys.CONSUMER_BYTE_RATE, "byte-rate"),
  REQUEST("kafka.server.Request", QuotaKeys.REQUEST_PERCENTAGE, "request-time"),
  CONTROLLER_MUTATION(
      "kafka.server.ControllerMutation", QuotaKeys.CONTROLLER_MUTATION_RATE, "mutation-rate");

  /** The metric group, {@code type=} of the JMX name. */
  final String group;

  /** The quota key of AlterClientQuotas. */
  final String key;

  /** The name of the metric the quota bounds. */
  final String metric;

  QuotaType(String group, String key, String metric) {
    this.group = group;
    this.key = key;
    this.metric = metric;
  }
}
