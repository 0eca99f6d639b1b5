package io.brook.broker.metrics;

import io.brook.protocol.metrics.BrokerMetrics;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Kafka's {@code kafka.server:type=BrokerTopicMetrics} meters, per topic ({@code topic} tag) and
 * over all topics (no tag): bytes and messages in, bytes out, produce and fetch requests and their
 * failures. A topic's sensors are made on its first use and cached, so recording is a lookup of the
 * (interned, hash-cached) topic name and a few sensor updates, nothing allocated.
 *
 * <p>A topic's meters are removed when the topic is deleted ({@link #removeTopic}).
 *
 * <p>Until {@link #bind} gives it a registry (a replica manager built for a test has none) every
 * record is dropped.
 */
public final class BrokerTopicStats {
  static final String DOMAIN = "kafka.server";
  static final String TYPE = "BrokerTopicMetrics";

  private static final String BYTES_IN = "BytesInPerSec";
  private static final String MESSAGES_IN = "MessagesInPerSec";
  private static final String BYTES_OUT = "BytesOutPerSec";
  private static final String PRODUCE_REQUESTS = "TotalProduceRequestsPerSec";
  private static final String FAILED_PRODUCE_REQUESTS = "FailedProduceRequestsPerSec";
  private static final String FETCH_REQUESTS = "TotalFetchRequestsPerSec";
  private static final String FAILED_FETCH_REQUESTS = "FailedFetchRequestsPerSec";

  /** Every meter's name, to remove a deleted topic's. */
  private static final List<String> NAMES =
      List.of(
          BYTES_IN,
          MESSAGES_IN,
          BYTES_OUT,
          PRODUCE_REQUESTS,
          FAILED_PRODUCE_REQUESTS,
          FETCH_REQUESTS,
          FAILED_FETCH_REQUESTS);

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
      bytesIn = metrics.meter(DOMAIN, TYPE, BYTES_IN, tags);
      messagesIn = metrics.meter(DOMAIN, TYPE, MESSAGES_IN, tags);
      bytesOut = metrics.meter(DOMAIN, TYPE, BYTES_OUT, tags);
      produceRequests = metrics.meter(DOMAIN, TYPE, PRODUCE_REQUESTS, tags);
      failedProduceRequests = metrics.meter(DOMAIN, TYPE, FAILED_PRODUCE_REQUESTS, tags);
      fetchRequests = metrics.meter(DOMAIN, TYPE, FETCH_REQUESTS, tags);
      failedFetchRequests = metrics.meter(DOMAIN, TYPE, FAILED_FETCH_REQUESTS, tags);
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

  /** {@code topic} was deleted: its meters go (the all-topics ones keep their counts). */
  public void removeTopic(String topic) {
    BrokerMetrics registry = metrics;
    if (registry != null && topics.remove(topic) != null) {
      for (String name : NAMES) {
        registry.remove(DOMAIN, TYPE, name, "topic", topic);
      }
    }
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
