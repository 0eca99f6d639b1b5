package io.brook.broker.cluster;

import io.brook.broker.time.Scheduler;
import io.brook.metadata.quorum.ControllerChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Sends Kafka requests to the active controller over the quorum's {@link ControllerChannel} and
 * decodes the answers. A call that reaches no controller fails with {@link NotControllerException},
 * which Kafka's clients retry.
 *
 * <p>The broker's own calls (heartbeats, registration, ISR changes) fail with a {@link
 * TimeoutException} when unanswered after {@code callTimeoutMs} (the larger of {@code
 * controller.quorum.request.timeout.ms} and half of {@code broker.session.timeout.ms}); their
 * callers keep one call in flight and send the next when it ends. Without the deadline one call
 * could hang them for minutes: the quorum client (Apache Ratis) schedules its retry pauses and
 * request timeouts on {@link java.util.Timer}s, which run on the wall clock, so after the node's
 * clock is stepped back a retry scheduled just before waits for as long as the step, and so does
 * every task queued behind it on that timer. The deadline runs on {@code scheduler}, on the
 * monotonic clock; the abandoned call's late answer is dropped. Forwarded admin requests have the
 * same backstop, after the quorum client's own long-call timeout plus the call timeout, so that a
 * client's CreateTopics cannot hang on a stalled timer either.
 */
public final class ControllerClient {
  private final ControllerChannel channel;
  private final Scheduler scheduler;
  private final long callTimeoutMs;

  public ControllerClient(ControllerChannel channel, Scheduler scheduler, long callTimeoutMs) {
    this.channel = channel;
    this.scheduler = scheduler;
    this.callTimeoutMs = callTimeoutMs;
  }

  /** Sends {@code request} at the newest version kafka-clients knows. */
  public CompletableFuture<ApiMessage> send(ApiKeys apiKey, ApiMessage request) {
    return send(apiKey, apiKey.latestVersion(), request);
  }

  /** Sends one of the broker's own calls, failing it if unanswered after the call timeout. */
  public CompletableFuture<ApiMessage> send(ApiKeys apiKey, short version, ApiMessage request) {
    return withDeadline(apiKey, send(apiKey, version, request, false), callTimeoutMs);
  }

  private CompletableFuture<ApiMessage> withDeadline(
      ApiKeys apiKey, CompletableFuture<ApiMessage> call, long timeoutMs) {
    CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
    Scheduler.Task deadline;
    try {
      deadline =
          scheduler.schedule(
              "controller-call-deadline",
              () ->
                  answer.completeExceptionally(
                      new TimeoutException(
                          "no controller answered " + apiKey + " within " + timeoutMs + " ms")),
              timeoutMs);
    } catch (RejectedExecutionException e) {
      return call; // the node is stopping: no deadline to keep
    }
    call.whenComplete(
        (message, failure) -> {
          deadline.cancel();
          if (failure != null) {
            answer.completeExceptionally(failure);
          } else {
            answer.complete(message);
          }
        });
    return answer;
  }

  /**
   * Sends a forwarded admin request, which may take long on the controller: waits up to {@link
   * ControllerChannel#LONG_CALL_TIMEOUT_MS} and is never sent twice after a timeout (then, on the
   * monotonic clock, the call timeout more at most: see the class comment).
   */
  public CompletableFuture<ApiMessage> sendAdmin(
      ApiKeys apiKey, short version, ApiMessage request) {
    return sendAdmin(apiKey, version, request, ControllerEnvelope.Origin.NODE);
  }

  /** As {@link #sendAdmin(ApiKeys, short, ApiMessage)}, on behalf of a client ({@code origin}). */
  public CompletableFuture<ApiMessage> sendAdmin(
      ApiKeys apiKey, short version, ApiMessage request, ControllerEnvelope.Origin origin) {
    return withDeadline(
        apiKey,
        send(apiKey, version, request, true, origin),
        ControllerChannel.LONG_CALL_TIMEOUT_MS + callTimeoutMs);
  }

  private CompletableFuture<ApiMessage> send(
      ApiKeys apiKey, short version, ApiMessage request, boolean longCall) {
    return send(apiKey, version, request, longCall, ControllerEnvelope.Origin.NODE);
  }

  private CompletableFuture<ApiMessage> send(
      ApiKeys apiKey,
      short version,
      ApiMessage request,
      boolean longCall,
      ControllerEnvelope.Origin origin) {
    byte[] bytes = ControllerEnvelope.encodeRequest(apiKey, version, request, origin);
    return (longCall ? channel.callLong(bytes) : channel.call(bytes))
        .handle(
            (answer, failure) -> {
              if (failure != null) {
                NotControllerException e =
                    new NotControllerException("no active controller answered: " + failure);
                e.initCause(failure);
                throw new CompletionException(e);
              }
              return ControllerEnvelope.decodeResponse(apiKey, version, answer);
            });
  }
}
