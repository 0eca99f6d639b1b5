package io.brook.protocol.network;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts open connections against {@code max.connections} (all listeners) and {@code
 * max.connections.per.ip}. Thread-safe: acceptors of every listener call it.
 */
public final class ConnectionLimiter {
  /** Whether a new connection may stay open, and if not which limit it hit. */
  public enum Admission {
    ADMITTED,
    TOO_MANY_CONNECTIONS,
    TOO_MANY_FROM_ADDRESS
  }

  private final int maxConnections;
  private final int maxConnectionsPerIp;
  private final AtomicInteger total = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

  public ConnectionLimiter(int maxConnections, int maxConnectionsPerIp) {
    this.maxConnections = maxConnections;
    this.maxConnectionsPerIp = maxConnectionsPerIp;
  }

  /**
   * Counts a new connection from {@code address} if both limits allow it. An admitted connection
   * must be {@linkplain #release released} exactly once when it closes.
   */
  public Admission tryAcquire(InetAddress address) {
    if (total.incrementAndGet() > maxConnections) {
      total.decrementAndGet();
      return Admission.TOO_MANY_CONNECTIONS;
    }
    boolean[] admitted = {false};
    perAddress.compute(
        address,
        (a, count) -> {
          int current = count == null ? 0 : count;
          if (current >= maxConnectionsPerIp) {
            return count;
          }
          admitted[0] = true;
          return current + 1;
        });
    if (!admitted[0]) {
      total.decrementAndGet();
      return Admission.TOO_MANY_FROM_ADDRESS;
    }
    return Admission.ADMITTED;
  }

  /** Forgets one admitted connection from {@code address}. */
  public void release(InetAddress address) {
    perAddress.computeIfPresent(address, (a, count) -> count <= 1 ? null : count - 1);
    total.decrementAndGet();
  }

  public int maxConnections() {
    return maxConnections;
  }

  public int maxConnectionsPerIp() {
    return maxConnectionsPerIp;
  }

  /** Open connections counted, across all addresses. */
  public int connections() {
    return total.get();
  }

  /** Open connections counted from {@code address}. */
  public int connections(InetAddress address) {
    return perAddress.getOrDefault(address, 0);
  }
}
