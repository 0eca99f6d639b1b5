package io.brook.coordinator.txn;

import java.util.Map;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.network.PlaintextChannelBuilder;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * kafka-clients' {@link NetworkClient} to other brokers on the inter-broker listener, used
 * asynchronously from one thread (several requests in flight, versions negotiated with
 * ApiVersions), the way Kafka's inter-broker send threads use it.
 */
final class InterBrokerClient implements AutoCloseable {
  private final NetworkClient network;
  private final Metrics metrics;
  private final int requestTimeoutMs;

  InterBrokerClient(String clientId, String listener, int requestTimeoutMs, Time time) {
    this.requestTimeoutMs = requestTimeoutMs;
    this.metrics = new Metrics(time);
    LogContext logContext = new LogContext("[" + clientId + "] ");
    PlaintextChannelBuilder channelBuilder =
        new PlaintextChannelBuilder(ListenerName.normalised(listener));
    channelBuilder.configure(Map.of());
    Selector selector = new Selector(600_000L, metrics, time, clientId, channelBuilder, logContext);
    this.network =
        new NetworkClient(
            selector,
            new ManualMetadataUpdater(),
            clientId,
            100,
            100,
            1_000,
            Selectable.USE_DEFAULT_BUFFER_SIZE,
            Selectable.USE_DEFAULT_BUFFER_SIZE,
            requestTimeoutMs,
            10_000,
            30_000,
            time,
            true,
            new ApiVersions(),
            logContext,
            MetadataRecoveryStrategy.NONE,
            BootstrapConfiguration.DISABLED,
            false);
  }

  NetworkClient network() {
    return network;
  }

  int requestTimeoutMs() {
    return requestTimeoutMs;
  }

  @Override
  public void close() {
    try {
      network.close();
    } finally {
      metrics.close();
    }
  }
}
