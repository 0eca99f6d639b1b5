package io.brook.broker.metrics;

import io.brook.protocol.metrics.BrokerMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Kafka's {@code kafka.server:type=BrokerTopicMetrics} meters, per topic ({@code topic} tag) and
 * over all topics (no tag): bytes and messages in, bytes out, produce and fetch requests and their
 * failures. A topic's sensors are made on its first use and cached, so recording is a lookup of the
 * (interned, hash-cached) topic name and a few sensor updates, nothing allocated.
 *
 * <p>Until {@link #bind} gives it a registry (a replica manager built for a test has none) every
 * record is dropped.
 */
public final class BrokerTopicStats {
  static final String DOMAIN = "kafka.server";
  static final String TYPE = "BrokerTopicMetrics";

  /** One topic's meters, or the all-topics ones. */
  public static final class Meters {
    final Sensor bytesIn;
    final Sensor messagesIn;
    final Sensor bytesOut;
    final Sensor produceRequests;
    final Sensor failedProduceRequests;
    final Sensor fetchRequests;
    final Sensor failedFetchRequests;

    Meters(BrokerMetrics metrics, String... tags) {
      bytesIn = metrics.meter(DOMAIN, TYPE, "BytesInPerSec", tags);
      messagesIn = metrics.meter(DOMAIN, TYPE, "MessagesInPerSec", tags);
      bytesOut = metrics.meter(DOMAIN, TYPE, "BytesOutPerSec", tags);
      produceRequests = metrics.meter(DOMAIN, TYPE, "TotalProduceRequestsPerSec", tags);
      failedProduceRequests = metrics.meter(DOMAIN, TYPE, "FailedProduceRequestsPerSec", tags);
      fetchRequests = metrics.meter(DOMAIN, TYPE, "TotalFetchRequestsPerSec", tags);
      failedFetchRequests = metrics.meter(DOMAIN, TYPE, "FailedFetchRequestsPerSec", tags);
    }

    void produced(int bytes, long messages) {
      produceRequests.record();
      bytesIn.record(bytes);
      messagesIn.record(messages);
    }

    void produceFailed() {
      produceRequests.record();
      failedProduceRequests.record();
    }

    void fetched(int bytes, boolean failed) {
      fetchRequests.record();
      if (failed) {
        failedFetchRequests.record();
      } else if (bytes > 0) {
        bytesOut.record(bytes);
      }
    }
  }

  private volatile BrokerMetrics metrics;
  private volatile Meters all;
  private final Map<String, Meters> topics = new ConcurrentHashMap<>();

  /** Starts recording into {@code registry}. */
  public void bind(BrokerMetrics registry) {
    this.metrics = registry;
    this.all = new Meters(registry);
  }

  private Meters topic(String topic) {
    Meters meters = topics.get(topic);
    if (meters == null) {
      BrokerMetrics registry = metrics;
      meters = topics.computeIfAbsent(topic, t -> new Meters(registry, "topic", t));
    }
    return meters;
  }

  /** A partition's append of {@code bytes} bytes holding {@code messages} records (a leader's). */
  public void produced(String topic, int bytes, long messages) {
    Meters total = all;
    if (total != null) {
      topic(topic).produced(bytes, messages);
      total.produced(bytes, messages);
    }
  }

  /** A partition's produce refused or failed. */
  public void produceFailed(String topic) {
    Meters total = all;
    if (total != null) {
      topic(topic).produceFailed();
      total.produceFailed();
    }
  }

  /** A partition read by a consumer's fetch (followers' fetches are replication, not counted). */
  public void fetched(String topic, int bytes, boolean failed) {
    Meters total = all;
    if (total != null) {
      topic(topic).fetched(bytes, failed);
      total.fetched(bytes, failed);
    }
  }
}
