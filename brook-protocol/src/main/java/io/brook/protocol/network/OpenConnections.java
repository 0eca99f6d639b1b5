package io.brook.protocol.network;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The server's open client connections, for a graceful shutdown. Thread-safe. */
final class OpenConnections {
  private static final Logger LOG = LoggerFactory.getLogger(OpenConnections.class);

  private final Map<Channel, ConnectionHandler> connections = new ConcurrentHashMap<>();

  /** Tracks {@code channel} until it closes. */
  void add(Channel channel, ConnectionHandler handler) {
    connections.put(channel, handler);
    channel.closeFuture().addListener(f -> connections.remove(channel));
  }

  int size() {
    return connections.size();
  }

  /**
   * Stops every connection reading and waits up to {@code timeout} for their responses in flight to
   * go out.
   *
   * @return whether every connection drained in time
   */
  boolean drainAll(Duration timeout) throws InterruptedException {
    List<CompletableFuture<Void>> drains = new ArrayList<>();
    connections.values().forEach(handler -> drains.add(handler.drain()));
    try {
      CompletableFuture.allOf(drains.toArray(CompletableFuture[]::new))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      long pending = drains.stream().filter(d -> !d.isDone()).count();
      LOG.warn(
          "Shutdown: responses still in flight after drain timeout connections={} timeoutMs={}",
          pending,
          timeout.toMillis());
      return false;
    } catch (ExecutionException e) {
      LOG.warn("Shutdown: drain failed error={}", e.getCause().toString());
      return false;
    }
  }

  /** Closes every connection and waits up to {@code timeout} for them to close. */
  void closeAll(Duration timeout) throws InterruptedException {
    List<ChannelFuture> closing = new ArrayList<>();
    connections.keySet().forEach(channel -> closing.add(channel.close()));
    long deadline = System.nanoTime() + timeout.toNanos();
    for (ChannelFuture future : closing) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0 || !future.await(remaining, TimeUnit.NANOSECONDS)) {
        LOG.warn("Shutdown: connections did not close in time timeoutMs={}", timeout.toMillis());
        return;
      }
    }
  }
}
