package io.brook.protocol.network;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.metrics.BrokerMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The network's part of Kafka's {@code kafka.network:type=RequestMetrics} histograms per API
 * ({@code request} tag), the handler's part being {@code RequestMetrics}' (queue, local and remote
 * time):
 *
 * <ul>
 *   <li>{@code ResponseQueueTimeMs}: from the handler's answer being complete to the response being
 *       handed to the socket: the hop back onto the connection's event loop, waiting for earlier
 *       pipelined requests' responses (responses go out in request order), quota accounting;
 *   <li>{@code ResponseSendTimeMs}: from then until the response's bytes were written to the socket
 *       (the kernel took them; not until the client read them);
 *   <li>{@code ThrottleTimeMs}: the throttle time given to the request's client by a quota (the
 *       response's {@code throttle_time_ms}, during which the connection is muted), 0 if none;
 *   <li>{@code TotalTimeMs}: from the request frame's arrival until its response was written, or
 *       until its handler finished for requests that get no response (Produce with acks=0).
 * </ul>
 *
 * <p>Sensors are made up front for every API of the registry; recording allocates nothing.
 * ApiVersions, answered by the network layer itself, is not measured (as {@code RequestsPerSec}).
 */
final class ResponseTimes {
  private static final String DOMAIN = "kafka.network";
  private static final String TYPE = "RequestMetrics";

  private final Sensor[][] byApi = new Sensor[maxApiId() + 1][];

  private static final int QUEUE = 0;
  private static final int SEND = 1;
  private static final int THROTTLE = 2;
  private static final int TOTAL = 3;

  ResponseTimes(BrokerMetrics metrics, ApiRegistry registry) {
    for (ApiKeys key : ApiKeys.values()) {
      if (registry.handler(key).isEmpty()) {
        continue;
      }
      String request = key.name;
      byApi[key.id] =
          new Sensor[] {
            metrics.histogram(DOMAIN, TYPE, "ResponseQueueTimeMs", "request", request),
            metrics.histogram(DOMAIN, TYPE, "ResponseSendTimeMs", "request", request),
            metrics.histogram(DOMAIN, TYPE, "ThrottleTimeMs", "request", request),
            metrics.histogram(DOMAIN, TYPE, "TotalTimeMs", "request", request)
          };
    }
  }

  /** Whether {@code api}'s requests are measured. */
  boolean measures(ApiKeys api) {
    return byApi[api.id] != null;
  }

  /** A response was written; times are {@code System.nanoTime()}. */
  void sent(
      ApiKeys api,
      long receivedNanos,
      long completedNanos,
      long writeNanos,
      long sentNanos,
      int throttleMs) {
    Sensor[] sensors = byApi[api.id];
    if (sensors == null) {
      return;
    }
    sensors[QUEUE].record(millis(writeNanos - completedNanos));
    sensors[SEND].record(millis(sentNanos - writeNanos));
    sensors[THROTTLE].record(throttleMs);
    sensors[TOTAL].record(millis(sentNanos - receivedNanos));
  }

  /** A request that gets no response was handled. */
  void unanswered(ApiKeys api, long receivedNanos, long completedNanos) {
    Sensor[] sensors = byApi[api.id];
    if (sensors != null) {
      sensors[TOTAL].record(millis(completedNanos - receivedNanos));
    }
  }

  private static double millis(long nanos) {
    return Math.max(0, nanos) / 1_000_000.0;
  }

  private static int maxApiId() {
    int max = 0;
    for (ApiKeys key : ApiKeys.values()) {
      max = Math.max(max, key.id);
    }
    return max;
  }
}
