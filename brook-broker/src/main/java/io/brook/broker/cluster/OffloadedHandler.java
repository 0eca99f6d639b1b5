package io.brook.broker.cluster;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Runs a handler that may wait (InitProducerId fetching a new block of ids, a metadata journal
 * write with its fsync, DeleteRecords, DescribeLogDirs) on {@code executor} instead of the Netty
 * event loop. A bounded executor that refuses the request answers a retriable REQUEST_TIMED_OUT.
 */
public final class OffloadedHandler implements ApiHandler {
  private final ApiHandler delegate;
  private final Executor executor;

  public OffloadedHandler(ApiHandler delegate, Executor executor) {
    this.delegate = delegate;
    this.executor = executor;
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
    return runOn(executor, delegate, context, request);
  }

  /**
   * An executor for handlers that wait: two daemon threads named {@code threadName}, at most {@code
   * queued} requests waiting for one, beyond which it refuses (bounded).
   */
  public static ThreadPoolExecutor boundedExecutor(String threadName, int queued) {
    return new ThreadPoolExecutor(
        2,
        2,
        0,
        TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(queued),
        runnable -> {
          Thread thread = new Thread(runnable, threadName);
          thread.setDaemon(true);
          return thread;
        });
  }

  /** Runs {@code handler} on {@code executor}; a refusal becomes a retriable error. */
  static CompletionStage<ApiMessage> runOn(
      Executor executor, ApiHandler handler, RequestContext context, ApiMessage request) {
    try {
      return CompletableFuture.supplyAsync(() -> handler.handle(context, request), executor)
          .thenCompose(stage -> stage);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          new TimeoutException("the broker is too busy to take this request now; retry", e));
    }
  }
}
