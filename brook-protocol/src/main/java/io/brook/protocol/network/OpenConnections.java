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

/**
 * The server's open client connections, for a graceful shutdown and for closing the least recently
 * used one when the node is over {@code max.connections}. Thread-safe.
 */
final class OpenConnections {
  private static final Logger LOG = LoggerFactory.getLogger(OpenConnections.class);

  private final Map<Channel, ConnectionHandler> connections = new ConcurrentHashMap<>();

  /** Connections closed for being least recently used, until their close completes. */
  private final java.util.Set<Channel> evicting = new java.util.HashSet<>();

  /** Tracks {@code channel} until it closes. */
  void add(Channel channel, ConnectionHandler handler) {
    connections.put(channel, handler);
    channel.closeFuture().addListener(f -> connections.remove(channel));
  }

  int size() {
    return connections.size();
  }

  /** The connections open now. */
  List<Channel> channels() {
    return List.copyOf(connections.keySet());
  }

  /**
   * Closes the {@code count} least recently used connections not on {@code exemptListener} (null:
   * none exempt), KIP-402's answer to inter-broker connections taking the node over {@code
   * max.connections}. A connection already being closed for this counts as one.
   */
  synchronized void closeLeastRecentlyUsed(int count, String exemptListener) {
    int toClose = count - evicting.size();
    if (toClose <= 0) {
      return;
    }
    List<Map.Entry<Channel, ConnectionHandler>> candidates = new ArrayList<>();
    connections.forEach(
        (channel, handler) -> {
          if (!handler.listenerName().equals(exemptListener) && !evicting.contains(channel)) {
            candidates.add(Map.entry(channel, handler));
          }
        });
    candidates.sort(
        java.util.Comparator.comparingLong(
            (Map.Entry<Channel, ConnectionHandler> e) -> e.getValue().lastUsedNanos()));
    for (Map.Entry<Channel, ConnectionHandler> lru :
        candidates.subList(0, Math.min(toClose, candidates.size()))) {
      Channel channel = lru.getKey();
      LOG.info(
          "Closing the least recently used connection peer={} listener={}"
              + " reason=max.connections exceeded by inter-broker connections",
          channel.remoteAddress(),
          lru.getValue().listenerName());
      evicting.add(channel);
      channel.closeFuture().addListener(f -> evicted(channel));
      channel.close();
    }
  }

  private synchronized void evicted(Channel channel) {
    evicting.remove(channel);
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
