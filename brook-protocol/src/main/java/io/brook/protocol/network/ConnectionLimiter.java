package io.brook.protocol.network;

import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts open connections against {@code max.connections} (all listeners) and {@code
 * max.connections.per.ip} (or its {@code max.connections.per.ip.overrides}). Thread-safe: acceptors
 * of every listener call it.
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

  /** {@code max.connections.per.ip.overrides}, resolved to addresses. */
  private final Map<InetAddress, Integer> overrides;

  private final AtomicInteger total = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

  public ConnectionLimiter(int maxConnections, int maxConnectionsPerIp) {
    this(maxConnections, maxConnectionsPerIp, Map.of());
  }

  /**
   * @param overrides per-address limits in place of {@code maxConnectionsPerIp}
   */
  public ConnectionLimiter(
      int maxConnections, int maxConnectionsPerIp, Map<InetAddress, Integer> overrides) {
    this.maxConnections = maxConnections;
    this.maxConnectionsPerIp = maxConnectionsPerIp;
    this.overrides = Map.copyOf(overrides);
  }

  /**
   * Resolves the host names and addresses of {@code max.connections.per.ip.overrides} (at start-up:
   * it may block on DNS); every address of a host gets the host's limit.
   *
   * @throws IllegalArgumentException if a host cannot be resolved
   */
  public static Map<InetAddress, Integer> resolve(Map<String, Integer> overrides) {
    Map<InetAddress, Integer> resolved = new java.util.HashMap<>();
    overrides.forEach(
        (host, limit) -> {
          try {
            for (InetAddress address : InetAddress.getAllByName(host)) {
              resolved.put(address, limit);
            }
          } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(
                "max.connections.per.ip.overrides: cannot resolve " + host, e);
          }
        });
    return resolved;
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
    int limit = overrides.getOrDefault(address, maxConnectionsPerIp);
    perAddress.compute(
        address,
        (a, count) -> {
          int current = count == null ? 0 : count;
          if (current >= limit) {
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
