package io.brook.protocol.client;

import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * One request from {@code send} to its answer; touched only on its connection's event loop.
 *
 * <p>It holds one of its connection's queue slots until its future completes. The connection gives
 * the slot back <em>before</em> completing the future: the caller's callbacks run inside {@code
 * complete}, and a caller that sends its next request from there (a follower's fetch loop does)
 * must find the slot free, or it is refused and backs off for a second.
 */
final class PendingRequest {
  final ApiKeys apiKey;
  final RequestBuilder builder;
  final CompletableFuture<NodeResponse> future;
  final int timeoutMs;
  short version = -1;
  int correlationId;
  ScheduledFuture<?> timer;
  private final Runnable releaseSlot;
  private final AtomicBoolean slotReleased = new AtomicBoolean();

  PendingRequest(
      ApiKeys apiKey,
      RequestBuilder builder,
      CompletableFuture<NodeResponse> future,
      int timeoutMs,
      Runnable releaseSlot) {
    this.apiKey = apiKey;
    this.builder = builder;
    this.future = future;
    this.timeoutMs = timeoutMs;
    this.releaseSlot = releaseSlot;
    // A caller that completes or cancels the future itself frees the slot too.
    future.whenComplete((response, error) -> releaseSlot());
  }

  boolean isDone() {
    return future.isDone();
  }

  void complete(NodeResponse response) {
    cancelTimer();
    releaseSlot();
    future.complete(response);
  }

  void fail(Throwable error) {
    cancelTimer();
    releaseSlot();
    future.completeExceptionally(error);
  }

  /** Any thread; once. */
  private void releaseSlot() {
    if (slotReleased.compareAndSet(false, true)) {
      releaseSlot.run();
    }
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
