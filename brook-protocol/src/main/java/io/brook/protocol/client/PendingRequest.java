package io.brook.protocol.client;

import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;

/** One request from {@code send} to its answer; touched only on its connection's event loop. */
final class PendingRequest {
  final ApiKeys apiKey;
  final RequestBuilder builder;
  final CompletableFuture<NodeResponse> future;
  final int timeoutMs;
  short version = -1;
  int correlationId;
  ScheduledFuture<?> timer;

  PendingRequest(
      ApiKeys apiKey,
      RequestBuilder builder,
      CompletableFuture<NodeResponse> future,
      int timeoutMs) {
    this.apiKey = apiKey;
    this.builder = builder;
    this.future = future;
    this.timeoutMs = timeoutMs;
  }

  boolean isDone() {
    return future.isDone();
  }

  void complete(NodeResponse response) {
    cancelTimer();
    future.complete(response);
  }

  void fail(Throwable error) {
    cancelTimer();
    future.completeExceptionally(error);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
