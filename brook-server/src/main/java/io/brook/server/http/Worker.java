package io.brook.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * The HTTP API's own threads, for what must not run on an event loop: checking passwords (SCRAM's
 * key derivation), parsing bodies and building batches, reading fetched records from segment files
 * and writing them as JSON. A bounded queue: work beyond it is refused with 503 rather than queued
 * without end.
 */
final class Worker implements AutoCloseable {
  private final ThreadPoolExecutor pool;

  Worker(int threads, int queued) {
    this.pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(queued),
            new DefaultThreadFactory("brook-http-worker", true));
  }

  /** Runs {@code work} on a worker thread; a full queue fails the result with 503. */
  <T> CompletableFuture<T> supply(Supplier<CompletableFuture<T>> work) {
    CompletableFuture<T> out = new CompletableFuture<>();
    try {
      pool.execute(
          () -> {
            try {
              work.get().whenComplete((value, error) -> complete(out, value, error));
            } catch (RuntimeException | Error e) {
              out.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      out.completeExceptionally(busy());
    }
    return out;
  }

  /** {@code then} applied to {@code stage}'s value on a worker thread. */
  <T, R> CompletableFuture<R> then(CompletableFuture<T> stage, Function<T, R> then) {
    return stage.thenCompose(
        value -> supply(() -> CompletableFuture.completedFuture(then.apply(value))));
  }

  private static <T> void complete(CompletableFuture<T> out, T value, Throwable error) {
    if (error == null) {
      out.complete(value);
    } else {
      out.completeExceptionally(
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error);
    }
  }

  private static HttpApiException busy() {
    return new HttpApiException(
        HttpResponseStatus.SERVICE_UNAVAILABLE,
        Errors.REQUEST_TIMED_OUT,
        "the HTTP API is busy: too many requests are waiting; retry");
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
