package io.brook.protocol.client;

import io.brook.protocol.network.Transport;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads every {@link InterNodeClient} of a node shares: a fixed number of Netty event loops
 * ({@code brook-internode-N}) for all outgoing connections, and one resolver thread, because a host
 * name lookup blocks and an event loop must not.
 */
public final class InterNodeEventLoops implements AutoCloseable {
  /** Lookups waiting for the resolver thread; more fail the connection attempt (retried). */
  static final int MAX_QUEUED_LOOKUPS = 1_024;

  private final Transport transport;
  private final EventLoopGroup group;
  private final ThreadPoolExecutor resolver;

  private InterNodeEventLoops(Transport transport, int threads) {
    this.transport = transport;
    this.group =
        new MultiThreadIoEventLoopGroup(
            threads,
            new DefaultThreadFactory("brook-internode", true),
            transport.ioHandlerFactory());
    this.resolver =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(MAX_QUEUED_LOOKUPS),
            new DefaultThreadFactory("brook-internode-resolver", true));
  }

  /**
   * @param threads event loops for all outgoing connections of this node (at least 1)
   */
  public static InterNodeEventLoops start(int threads) {
    return start(threads, Transport.detect());
  }

  public static InterNodeEventLoops start(int threads, Transport transport) {
    if (threads < 1) {
      throw new IllegalArgumentException("at least one event loop, not " + threads);
    }
    if (!transport.isAvailable()) {
      throw new IllegalStateException("transport " + transport + " is not available here");
    }
    return new InterNodeEventLoops(transport, threads);
  }

  Transport transport() {
    return transport;
  }

  EventLoopGroup group() {
    return group;
  }

  /** Resolves {@code host} on the resolver thread (afresh each time, so a moved host is found). */
  CompletableFuture<InetSocketAddress> resolve(String host, int port) {
    CompletableFuture<InetSocketAddress> result = new CompletableFuture<>();
    try {
      resolver.execute(
          () -> {
            try {
              result.complete(new InetSocketAddress(InetAddress.getByName(host), port));
            } catch (UnknownHostException | RuntimeException e) {
              result.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(e);
    }
    return result;
  }

  @Override
  public void close() {
    resolver.shutdownNow();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
