package io.brook.server;

import io.brook.broker.replica.ReadReplicaSelector;
import io.brook.broker.replica.fetcher.ReplicaFetchConfig;
import io.brook.server.config.BrokerConfig;

/** The replication settings, read from the broker configuration under Kafka's names. */
final class ReplicationConfigs {
  private ReplicationConfigs() {}

  static ReplicaFetchConfig fetch(BrokerConfig config) {
    return new ReplicaFetchConfig(
        intValue(config, "num.replica.fetchers"),
        intValue(config, "replica.fetch.max.bytes"),
        intValue(config, "replica.fetch.response.max.bytes"),
        intValue(config, "replica.fetch.min.bytes"),
        intValue(config, "replica.fetch.wait.max.ms"),
        intValue(config, "replica.fetch.backoff.ms"),
        intValue(config, "replica.socket.timeout.ms"),
        intValue(config, "brook.replica.fetch.stall.timeout.ms"),
        intValue(config, "replica.socket.receive.buffer.bytes"),
        config.interBrokerListenerName());
  }

  static long lagTimeMaxMs(BrokerConfig config) {
    return ((Number) config.value("replica.lag.time.max.ms")).longValue();
  }

  static ReadReplicaSelector readReplicaSelector(BrokerConfig config) {
    Object className = config.value("replica.selector.class");
    return ReadReplicaSelector.forClassName(className == null ? null : className.toString());
  }

  private static int intValue(BrokerConfig config, String name) {
    return ((Number) config.value(name)).intValue();
  }
}
