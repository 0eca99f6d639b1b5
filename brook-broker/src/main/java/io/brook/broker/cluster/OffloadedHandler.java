package io.brook.broker.cluster;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Runs a handler that may wait for the controller (InitProducerId fetching a new block of ids) on
 * {@code executor} instead of the Netty event loop.
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
    return CompletableFuture.supplyAsync(() -> delegate.handle(context, request), executor)
        .thenCompose(stage -> stage);
  }
}
