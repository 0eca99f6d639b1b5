package io.brook.broker.api;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Hands Kafka API requests to this broker's own handlers, in process: the handlers a Kafka listener
 * serves, wrapped the same way (authorization, request metrics, forwarding to the controller,
 * read-your-writes), so a request of the HTTP API is validated, authorized and counted against its
 * quotas exactly as the same Kafka request would be. Nothing is serialized and no socket is
 * involved. Callers build their requests with mutable lists ({@link #mutable}): handlers may trim a
 * request's lists (an authorization check removes the denied entries), as they do decoded ones.
 */
public final class InProcessApis {
  private final ApiRegistry registry;
  private final String clientId;
  private final String listenerName;
  private final AtomicInteger correlationIds = new AtomicInteger();

  /**
   * @param clientId the client id the requests carry: what client-id quotas and request logs see
   * @param listenerName the Kafka listener whose advertised addresses answers name (Metadata,
   *     FindCoordinator)
   */
  public InProcessApis(ApiRegistry registry, String clientId, String listenerName) {
    this.registry = registry;
    this.clientId = clientId;
    this.listenerName = listenerName;
  }

  /** Who sends a request: the authenticated principal and the peer's address. */
  public record Caller(KafkaPrincipal principal, InetAddress address, String connectionId) {}

  /**
   * A handler's answer and how long the caller's quotas throttle it.
   *
   * @param response the response body, null for a request without one (Produce with acks=0)
   */
  public record Answer<T extends ApiMessage>(T response, int throttleMs) {}

  /** A one-element list the handlers may change. */
  public static <T> List<T> mutable(T element) {
    List<T> list = new ArrayList<>(1);
    list.add(element);
    return list;
  }

  /**
   * Sends {@code request} to the handler of {@code key} at {@code version}, or the handler's newest
   * version when that is older. A handler's failure fails the result with its cause (an {@code
   * ApiException} for a Kafka error), as the network layer would answer it with that error.
   *
   * @param requestBytes what the request weighs for byte-rate quotas (the size it came in)
   */
  @SuppressWarnings("unchecked")
  public <T extends ApiMessage> CompletableFuture<Answer<T>> call(
      ApiKeys key, short version, ApiMessage request, Caller caller, int requestBytes) {
    ApiHandler handler =
        registry
            .handler(key)
            .orElseThrow(() -> new IllegalStateException("this broker does not serve " + key));
    short used = (short) Math.min(version, handler.maxVersion());
    if (used < handler.minVersion()) {
      throw new IllegalStateException(key + " v" + version + " is not served");
    }
    RequestContext context =
        new RequestContext(
            new RequestHeader(key, used, clientId, correlationIds.incrementAndGet()),
            listenerName,
            caller.address(),
            caller.connectionId(),
            System.nanoTime(),
            () -> {},
            caller.principal());
    long start = System.nanoTime();
    CompletableFuture<ApiMessage> stage;
    try {
      stage = handler.handle(context, request).toCompletableFuture();
    } catch (RuntimeException e) {
      stage = CompletableFuture.failedFuture(e);
    }
    long handlerNanos = System.nanoTime() - start;
    return stage.handle(
        (response, error) -> {
          if (error != null) {
            Throwable cause =
                error instanceof CompletionException && error.getCause() != null
                    ? error.getCause()
                    : error;
            throw cause instanceof RuntimeException r ? r : new CompletionException(cause);
          }
          int throttleMs =
              response == null
                  ? 0
                  : registry
                      .throttler()
                      .onAnswered(context, request, requestBytes, response, handlerNanos);
          return new Answer<>((T) response, throttleMs);
        });
  }
}
