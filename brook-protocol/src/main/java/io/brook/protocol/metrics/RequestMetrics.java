package io.brook.protocol.metrics;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Kafka's {@code kafka.network:type=RequestMetrics} per API ({@code request} tag: {@code Produce},
 * {@code Fetch}...): the {@code RequestsPerSec} meter and the {@code RequestQueueTimeMs}, {@code
 * LocalTimeMs} and {@code RemoteTimeMs} histograms; the network layer records the rest ({@code
 * ResponseQueueTimeMs}, {@code ResponseSendTimeMs}, {@code ThrottleTimeMs}, {@code TotalTimeMs}).
 * Each handler is wrapped once, with its sensors made up front: a request records into them without
 * any lookup.
 *
 * <p>Brook's request path differs from Kafka's, so the phases are measured where Brook has them:
 * the queue time is from the frame's arrival to its handler being called (decoding, and waiting
 * behind the connection's earlier reads); the local time is the handler's own work until it returns
 * its stage (on the event loop); the remote time is from then until the stage completes (waiting
 * for the disk pool, for replicas with acks=all, for a fetch's data or a coordinator).
 */
public final class RequestMetrics {
  private static final String DOMAIN = "kafka.network";
  private static final String TYPE = "RequestMetrics";

  private RequestMetrics() {}

  /** The handlers, each wrapped to record its API's request metrics into {@code metrics}. */
  public static List<ApiHandler> wrap(List<? extends ApiHandler> handlers, BrokerMetrics metrics) {
    List<ApiHandler> wrapped = new ArrayList<>(handlers.size());
    for (ApiHandler handler : handlers) {
      wrapped.add(new Metered(handler, metrics));
    }
    return wrapped;
  }

  /** Kafka's name of an API in the {@code request} tag: {@code Produce}, {@code OffsetCommit}. */
  static String requestName(ApiKeys key) {
    return key.name;
  }

  private static final class Metered implements ApiHandler {
    private final ApiHandler delegate;
    private final Sensor requests;
    private final Sensor queueTime;
    private final Sensor localTime;
    private final Sensor remoteTime;

    Metered(ApiHandler delegate, BrokerMetrics metrics) {
      this.delegate = delegate;
      String request = requestName(delegate.apiKey());
      requests = metrics.meter(DOMAIN, TYPE, "RequestsPerSec", "request", request);
      queueTime = metrics.histogram(DOMAIN, TYPE, "RequestQueueTimeMs", "request", request);
      localTime = metrics.histogram(DOMAIN, TYPE, "LocalTimeMs", "request", request);
      remoteTime = metrics.histogram(DOMAIN, TYPE, "RemoteTimeMs", "request", request);
    }

    @Override
    public ApiKeys apiKey() {
      return delegate.apiKey();
    }

    @Override
    public short minVersion() {
      return delegate.minVersion();
    }

    @Override
    public short maxVersion() {
      return delegate.maxVersion();
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
      long received = context.receivedNanos();
      long started = System.nanoTime();
      requests.record();
      queueTime.record(millis(started - received));
      CompletionStage<ApiMessage> stage = delegate.handle(context, request);
      long returned = System.nanoTime();
      localTime.record(millis(returned - started));
      if (stage != null) {
        stage.whenComplete(
            (response, failure) -> {
              remoteTime.record(millis(System.nanoTime() - returned));
            });
      }
      return stage;
    }

    private static double millis(long nanos) {
      return nanos / 1_000_000.0;
    }

    @Override
    public String toString() {
      return delegate.toString();
    }
  }
}
