package io.brook.broker.metrics;

import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.storage.remote.RemoteLogManager;
import io.brook.storage.remote.RemoteLogMetrics;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Kafka's remote storage metrics (KIP-405, KIP-963) under {@code
 * kafka.server:type=BrokerTopicMetrics}, per topic ({@code topic} tag) and over all topics (no
 * tag), in the registry {@link BrokerTopicStats} uses: for copies, fetches and deletes the meters
 * {@code Remote<Op>RequestsPerSec} and {@code Remote<Op>ErrorsPerSec}, for copies and fetches
 * {@code Remote<Op>BytesPerSec}; and the gauges {@code RemoteLogSizeBytes} (bytes in remote storage
 * of the partitions this broker leads), {@code RemoteCopyLagBytes} and {@code
 * RemoteCopyLagSegments} (rolled local segments of those partitions not yet copied). Over all
 * topics only, Brook's chunk cache gauges {@code RemoteChunkCache{Hits,Misses,FetchedBytes,
 * SizeBytes}}.
 *
 * <p>A topic's metrics are made when the remote log manager first reports on it, and removed when
 * the topic is deleted. A copy or read of the deleted topic still under way when it is deleted may
 * report once more and so bring them back, until the name is used again or the broker restarts.
 */
public final class RemoteStorageMetrics implements RemoteLogMetrics {
  private static final String DOMAIN = BrokerTopicStats.DOMAIN;
  private static final String TYPE = BrokerTopicStats.TYPE;

  /** The three meters of one operation, under Kafka's names; {@code bytes} is null for deletes. */
  private record OperationMeters(Sensor requests, Sensor errors, Sensor bytes) {
    static OperationMeters of(BrokerMetrics metrics, Operation op, String... tags) {
      String prefix = "Remote" + name(op);
      return new OperationMeters(
          metrics.meter(DOMAIN, TYPE, prefix + "RequestsPerSec", tags),
          metrics.meter(DOMAIN, TYPE, prefix + "ErrorsPerSec", tags),
          op == Operation.DELETE
              ? null
              : metrics.meter(DOMAIN, TYPE, prefix + "BytesPerSec", tags));
    }

    /** One request: failed, or done moving {@code bytes} bytes. */
    void mark(long bytes, boolean failed) {
      requests.record();
      if (failed) {
        errors.record();
      } else if (this.bytes != null) {
        this.bytes.record(bytes);
      }
    }
  }

  /** Gauges per topic and over all topics, with the remote log manager's sum for each. */
  private enum Gauge {
    REMOTE_LOG_SIZE_BYTES("RemoteLogSizeBytes"),
    REMOTE_COPY_LAG_BYTES("RemoteCopyLagBytes"),
    REMOTE_COPY_LAG_SEGMENTS("RemoteCopyLagSegments");

    final String metricName;

    Gauge(String metricName) {
      this.metricName = metricName;
    }

    /** The value for {@code topic}, or over all topics if null. */
    long read(RemoteLogManager manager, String topic) {
      return switch (this) {
        case REMOTE_LOG_SIZE_BYTES -> manager.remoteLogSizeBytes(topic);
        case REMOTE_COPY_LAG_BYTES -> manager.copyLagBytes(topic);
        case REMOTE_COPY_LAG_SEGMENTS -> manager.copyLagSegments(topic);
      };
    }
  }

  private final BrokerMetrics metrics;
  private final RemoteLogManager manager;
  private final Map<Operation, OperationMeters> all;
  private final Map<String, Map<Operation, OperationMeters>> topics = new ConcurrentHashMap<>();

  private RemoteStorageMetrics(BrokerMetrics metrics, RemoteLogManager manager) {
    this.metrics = metrics;
    this.manager = manager;
    this.all = meters();
    registerGauges(null);
    if (manager.chunkCacheStats().isPresent()) {
      registerChunkCacheGauges();
    }
  }

  /**
   * Brook's chunk cache of remote logs (docs/storage.md), over the whole broker: chunk reads served
   * from local disk, chunks fetched from the store and their bytes (counts since start), and the
   * bytes it holds.
   */
  private void registerChunkCacheGauges() {
    metrics.gauge(DOMAIN, TYPE, "RemoteChunkCacheHits", () -> chunkCache().hits());
    metrics.gauge(DOMAIN, TYPE, "RemoteChunkCacheMisses", () -> chunkCache().misses());
    metrics.gauge(DOMAIN, TYPE, "RemoteChunkCacheFetchedBytes", () -> chunkCache().fetchedBytes());
    metrics.gauge(DOMAIN, TYPE, "RemoteChunkCacheSizeBytes", () -> chunkCache().cachedBytes());
  }

  private RemoteLogManager.ChunkCacheStats chunkCache() {
    return manager.chunkCacheStats().orElseThrow();
  }

  /** Registers the metrics of {@code manager} in {@code metrics} and starts reporting into them. */
  public static void register(BrokerMetrics metrics, RemoteLogManager manager) {
    manager.metrics(new RemoteStorageMetrics(metrics, manager));
  }

  /** "Copy", "Fetch", "Delete", as Kafka spells them in the metric names. */
  private static String name(Operation op) {
    String lower = op.name().toLowerCase(Locale.ROOT);
    return Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
  }

  /** The meters of every operation, for {@code tags} (none: over all topics). */
  private Map<Operation, OperationMeters> meters(String... tags) {
    Map<Operation, OperationMeters> out = new EnumMap<>(Operation.class);
    for (Operation op : Operation.values()) {
      out.put(op, OperationMeters.of(metrics, op, tags));
    }
    return out;
  }

  /** The gauges of {@code topic}, or over all topics if null. */
  private void registerGauges(String topic) {
    String[] tags = topic == null ? new String[0] : new String[] {"topic", topic};
    for (Gauge gauge : Gauge.values()) {
      metrics.gauge(DOMAIN, TYPE, gauge.metricName, () -> gauge.read(manager, topic), tags);
    }
  }

  private OperationMeters topic(String topic, Operation op) {
    Map<Operation, OperationMeters> meters = topics.get(topic);
    if (meters == null) {
      meters =
          topics.computeIfAbsent(
              topic,
              t -> {
                registerGauges(t);
                return meters("topic", t);
              });
    }
    return meters.get(op);
  }

  @Override
  public void succeeded(String topic, Operation operation, long bytes) {
    all.get(operation).mark(bytes, false);
    topic(topic, operation).mark(bytes, false);
  }

  @Override
  public void failed(String topic, Operation operation) {
    all.get(operation).mark(0, true);
    topic(topic, operation).mark(0, true);
  }

  @Override
  public void topicDeleted(String topic) {
    if (topics.remove(topic) == null) {
      return;
    }
    for (Operation op : Operation.values()) {
      for (String suffix : new String[] {"RequestsPerSec", "ErrorsPerSec", "BytesPerSec"}) {
        metrics.remove(DOMAIN, TYPE, "Remote" + name(op) + suffix, "topic", topic);
      }
    }
    for (Gauge gauge : Gauge.values()) {
      metrics.remove(DOMAIN, TYPE, gauge.metricName, "topic", topic);
    }
  }
}
