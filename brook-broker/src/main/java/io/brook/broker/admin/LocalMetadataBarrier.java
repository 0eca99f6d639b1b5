package io.brook.broker.admin;

import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Read-your-writes for admin requests on the node that served them. A controller's answer to
 * CreateTopics (or DeleteTopics, CreatePartitions, ...) means its records are committed; this
 * node's replica manager applies them a moment later, on the metadata publisher thread. Without
 * this barrier a client that creates a topic and at once asks the same node for its metadata may
 * not see it (Kafka behaves so too, and its clients retry). Brook holds the admin response until
 * this node has applied the metadata the controller had when it answered, so a tool's "create, then
 * describe" sees its own change.
 *
 * <p>Registered as the last metadata listener, so an image reaching it has been applied by every
 * listener before it. Bounded: at most {@link #MAX_WAITERS} responses wait, each at most {@link
 * #MAX_WAIT_MS}; beyond either the response goes out at once, as it would in Kafka.
 */
public final class LocalMetadataBarrier implements Consumer<MetadataImage> {
  static final int MAX_WAITERS = 4096;
  static final long MAX_WAIT_MS = 10_000;

  private record Waiter(long offset, CompletableFuture<Void> done) {}

  private final PriorityQueue<Waiter> waiters =
      new PriorityQueue<>((a, b) -> Long.compare(a.offset, b.offset));
  private long applied = -1;

  /** Called with each image once every earlier listener (the replica manager) applied it. */
  @Override
  public void accept(MetadataImage image) {
    List<Waiter> ready = new ArrayList<>();
    synchronized (this) {
      applied = Math.max(applied, image.offset());
      while (!waiters.isEmpty() && waiters.peek().offset <= applied) {
        ready.add(waiters.poll());
      }
    }
    // Outside the monitor: completing runs the response pipeline.
    ready.forEach(w -> w.done.complete(null));
  }

  /** Completes once this node has applied metadata at {@code offset} (or waited its longest). */
  public CompletableFuture<Void> applied(long offset) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    synchronized (this) {
      if (offset <= applied || waiters.size() >= MAX_WAITERS) {
        return CompletableFuture.completedFuture(null);
      }
      waiters.add(new Waiter(offset, done));
    }
    return done.completeOnTimeout(null, MAX_WAIT_MS, TimeUnit.MILLISECONDS)
        .whenComplete((v, e) -> forget(done));
  }

  private synchronized void forget(CompletableFuture<Void> done) {
    waiters.removeIf(w -> w.done == done);
  }

  /**
   * {@code handler}'s responses held until this node has applied the metadata {@code
   * committedOffset} names when the handler answers.
   */
  public ApiHandler around(ApiHandler handler, LongSupplier committedOffset) {
    LocalMetadataBarrier barrier = this;
    return new ApiHandler() {
      @Override
      public ApiKeys apiKey() {
        return handler.apiKey();
      }

      @Override
      public short minVersion() {
        return handler.minVersion();
      }

      @Override
      public short maxVersion() {
        return handler.maxVersion();
      }

      @Override
      public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        return handler
            .handle(context, request)
            .thenCompose(
                response -> barrier.applied(committedOffset.getAsLong()).thenApply(v -> response));
      }
    };
  }
}
