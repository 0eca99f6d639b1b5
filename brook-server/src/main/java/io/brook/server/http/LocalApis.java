package io.brook.server.http;

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
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands Kafka API requests to this broker's own handlers, in process: the handlers a Kafka listener
 * serves, wrapped the same way (authorization, request metrics, forwarding to the controller,
 * read-your-writes), so an HTTP request is validated, authorized and counted against its quotas
 * exactly as the same Kafka request would be. Nothing is serialized and no socket is involved.
 */
final class LocalApis {
  private static final Logger LOG = LoggerFactory.getLogger(LocalApis.class);

  /** The client id HTTP requests carry: what client-id quotas and request logs see. */
  static final String CLIENT_ID = "brook-http";

  private final ApiRegistry registry;
  private final String listenerName;
  private final AtomicInteger correlationIds = new AtomicInteger();

  /**
   * @param listenerName the Kafka listener whose advertised addresses answers name (Metadata,
   *     FindCoordinator)
   */
  LocalApis(ApiRegistry registry, String listenerName) {
    this.registry = registry;
    this.listenerName = listenerName;
  }

  /**
   * A one-element list the handlers may change, as they may change a decoded request's lists (an
   * authorization check removes the denied entries); the requests built here must not use immutable
   * ones.
   */
  static <T> List<T> mutable(T element) {
    List<T> list = new ArrayList<>(1);
    list.add(element);
    return list;
  }

  /** Who sends a request: the authenticated principal and the peer's address. */
  record Caller(KafkaPrincipal principal, InetAddress address, String connectionId) {}

  /**
   * A handler's answer and how long the caller's quotas throttle it.
   *
   * @param response the response body, null for a request without one (Produce with acks=0)
   */
  record Answer<T extends ApiMessage>(T response, int throttleMs) {}

  /**
   * Sends {@code request} to the handler of {@code key} at {@code version}, or the handler's newest
   * version when that is older (the handlers of this build serve every version these requests use).
   *
   * @param requestBytes what the request weighs for byte-rate quotas (the HTTP body's size)
   */
  @SuppressWarnings("unchecked")
  <T extends ApiMessage> CompletableFuture<Answer<T>> call(
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
            new RequestHeader(key, used, CLIENT_ID, correlationIds.incrementAndGet()),
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
            Throwable cause = error instanceof CompletionException ? error.getCause() : error;
            Errors code = Errors.forException(cause);
            if (code == Errors.UNKNOWN_SERVER_ERROR) {
              LOG.warn("HTTP API request failed api={}", key, cause);
            }
            throw new HttpApiException(
                code, cause.getMessage() == null ? code.message() : cause.getMessage());
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
