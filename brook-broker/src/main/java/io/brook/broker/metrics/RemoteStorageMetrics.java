package io.brook.broker.metrics;

import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.storage.remote.RemoteLogManager;
import io.brook.storage.remote.RemoteLogMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Kafka's remote storage metrics (KIP-405, KIP-963) under {@code
 * kafka.server:type=BrokerTopicMetrics}, per topic ({@code topic} tag) and over all topics: the
 * copy and fetch meters, and over all topics the gauges {@code RemoteLogSizeBytes} (bytes in remote
 * storage of the partitions this broker leads) and {@code RemoteCopyLagBytes} (bytes of rolled
 * local segments of those partitions not yet copied). A topic's sensors are made on first use and
 * cached.
 */
public final class RemoteStorageMetrics implements RemoteLogMetrics {
  private static final String DOMAIN = BrokerTopicStats.DOMAIN;
  private static final String TYPE = BrokerTopicStats.TYPE;

  /** One topic's meters, or the all-topics ones. */
  private static final class Meters {
    final Sensor copyBytes;
    final Sensor copyRequests;
    final Sensor failedCopyRequests;
    final Sensor fetchBytes;
    final Sensor fetchRequests;
    final Sensor failedFetchRequests;

    Meters(BrokerMetrics metrics, String... tags) {
      copyBytes = metrics.meter(DOMAIN, TYPE, "RemoteCopyBytesPerSec", tags);
      copyRequests = metrics.meter(DOMAIN, TYPE, "RemoteCopyRequestsPerSec", tags);
      failedCopyRequests = metrics.meter(DOMAIN, TYPE, "FailedRemoteCopyRequestsPerSec", tags);
      fetchBytes = metrics.meter(DOMAIN, TYPE, "RemoteFetchBytesPerSec", tags);
      fetchRequests = metrics.meter(DOMAIN, TYPE, "RemoteFetchRequestsPerSec", tags);
      failedFetchRequests = metrics.meter(DOMAIN, TYPE, "FailedRemoteFetchRequestsPerSec", tags);
    }
  }

  private final BrokerMetrics metrics;
  private final Meters all;
  private final Map<String, Meters> topics = new ConcurrentHashMap<>();

  private RemoteStorageMetrics(BrokerMetrics metrics) {
    this.metrics = metrics;
    this.all = new Meters(metrics);
  }

  /** Registers the metrics of {@code manager} in {@code metrics} and starts reporting into them. */
  public static void register(BrokerMetrics metrics, RemoteLogManager manager) {
    RemoteStorageMetrics out = new RemoteStorageMetrics(metrics);
    metrics.gauge(DOMAIN, TYPE, "RemoteLogSizeBytes", manager::remoteLogSizeBytes);
    metrics.gauge(DOMAIN, TYPE, "RemoteCopyLagBytes", manager::copyLagBytes);
    manager.metrics(out);
  }

  private Meters topic(String topic) {
    return topics.computeIfAbsent(topic, t -> new Meters(metrics, "topic", t));
  }

  /** Marks {@code mark} on the all-topics meters and on the topic's. */
  private void both(String topic, Consumer<Meters> mark) {
    mark.accept(all);
    mark.accept(topic(topic));
  }

  @Override
  public void copied(String topic, long bytes) {
    both(
        topic,
        m -> {
          m.copyRequests.record();
          m.copyBytes.record(bytes);
        });
  }

  @Override
  public void copyFailed(String topic) {
    both(
        topic,
        m -> {
          m.copyRequests.record();
          m.failedCopyRequests.record();
        });
  }

  @Override
  public void fetched(String topic, long bytes) {
    both(
        topic,
        m -> {
          m.fetchRequests.record();
          m.fetchBytes.record(bytes);
        });
  }

  @Override
  public void fetchFailed(String topic) {
    both(
        topic,
        m -> {
          m.fetchRequests.record();
          m.failedFetchRequests.record();
        });
  }
}
