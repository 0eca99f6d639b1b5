package io.brook.protocol.testing;

import static org.awaitility.Awaitility.await;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A handler that answers nothing by itself: each request is held with its future until the test
 * completes it, from the test thread (so completions hop back onto the event loop).
 */
public final class HeldRequests implements ApiHandler {
  /** One request waiting for its answer. */
  public record Held(
      RequestContext context, ApiMessage request, CompletableFuture<ApiMessage> response) {}

  private final ApiKeys apiKey;
  private final List<Held> held = new CopyOnWriteArrayList<>();

  public HeldRequests(ApiKeys apiKey) {
    this.apiKey = apiKey;
  }

  @Override
  public ApiKeys apiKey() {
    return apiKey;
  }

  @Override
  public short minVersion() {
    return apiKey.oldestVersion();
  }

  @Override
  public short maxVersion() {
    return apiKey.latestVersion();
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
    CompletableFuture<ApiMessage> response = new CompletableFuture<>();
    held.add(new Held(context, request, response));
    return response;
  }

  /** Waits until {@code count} requests have arrived and returns them in arrival order. */
  public List<Held> awaitHeld(int count) {
    await().atMost(Duration.ofSeconds(5)).until(() -> held.size() >= count);
    return List.copyOf(held);
  }

  /** Requests arrived so far. */
  public int size() {
    return held.size();
  }
}
