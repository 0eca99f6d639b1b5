package io.brook.protocol.network;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Kafka's connection quotas for the accept side: counts open connections against {@code
 * max.connections} (all listeners), {@code listener.name.<l>.max.connections} and {@code
 * max.connections.per.ip} (or its {@code max.connections.per.ip.overrides}), and paces new
 * connections to {@code max.connection.creation.rate} (broker-wide and per listener).
 *
 * <p>What a caller does with each answer follows Kafka: a connection over the per-address limit is
 * closed at once; one that finds no slot under the listener's or the broker's limit waits, with the
 * listener no longer accepting, until a connection closes; a connection over a creation rate waits
 * for {@link #throttleNanos} before it is served. The inter-broker listener (when there is more
 * than one listener) is exempt from the broker-wide limits, so replication keeps working when
 * clients use them up.
 *
 * <p>Thread-safe: the connections of every listener, on every event loop, call it; connections are
 * opened rarely enough that one lock costs nothing.
 */
public final class ConnectionLimiter {
  /** Whether a new connection may be served now, and if not which limit it hit. */
  public enum Admission {
    ADMITTED,
    /** No slot under {@code max.connections} or the listener's: wait for one to free. */
    TOO_MANY_CONNECTIONS,
    /** Over {@code max.connections.per.ip}: close. */
    TOO_MANY_FROM_ADDRESS
  }

  private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final int maxConnections;
  private final int maxConnectionsPerIp;

  /** {@code max.connections.per.ip.overrides}, resolved to addresses. */
  private final Map<InetAddress, Integer> overrides;

  private final AcceptLimits acceptLimits;
  private final boolean interBrokerProtected;
  private final LongSupplier nanoClock;

  private int total;
  private final Map<InetAddress, Integer> perAddress = new HashMap<>();
  private final Map<String, Integer> perListener = new HashMap<>();
  private final CreationRate brokerRate;
  private final Map<String, CreationRate> listenerRates = new HashMap<>();
  private long throttled;

  /** Per-address creation rates: own lock, as they are updated from the metadata's thread. */
  private final IpConnectionRates ipRates = new IpConnectionRates(System::currentTimeMillis);

  public ConnectionLimiter(int maxConnections, int maxConnectionsPerIp) {
    this(maxConnections, maxConnectionsPerIp, Map.of());
  }

  /**
   * @param overrides per-address limits in place of {@code maxConnectionsPerIp}
   */
  public ConnectionLimiter(
      int maxConnections, int maxConnectionsPerIp, Map<InetAddress, Integer> overrides) {
    this(maxConnections, maxConnectionsPerIp, overrides, AcceptLimits.NONE, 1, System::nanoTime);
  }

  /**
   * @param listenerCount how many listeners the server has (the inter-broker listener is only
   *     exempt from the broker-wide limits when there are others)
   * @param nanoClock {@link System#nanoTime}, or a test's clock
   */
  public ConnectionLimiter(
      int maxConnections,
      int maxConnectionsPerIp,
      Map<InetAddress, Integer> overrides,
      AcceptLimits acceptLimits,
      int listenerCount,
      LongSupplier nanoClock) {
    this.maxConnections = maxConnections;
    this.maxConnectionsPerIp = maxConnectionsPerIp;
    this.overrides = Map.copyOf(overrides);
    this.acceptLimits = acceptLimits;
    this.interBrokerProtected = acceptLimits.interBrokerListener() != null && listenerCount > 1;
    this.nanoClock = nanoClock;
    this.brokerRate = new CreationRate(acceptLimits.maxConnectionCreationRate());
    acceptLimits
        .listeners()
        .forEach(
            (name, limits) ->
                listenerRates.put(name, new CreationRate(limits.maxConnectionCreationRate())));
  }

  /**
   * Resolves the host names and addresses of {@code max.connections.per.ip.overrides} (at start-up:
   * it may block on DNS); every address of a host gets the host's limit.
   *
   * @throws IllegalArgumentException if a host cannot be resolved
   */
  public static Map<InetAddress, Integer> resolve(Map<String, Integer> overrides) {
    Map<InetAddress, Integer> resolved = new HashMap<>();
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
   * Counts a new connection from {@code address} on {@code listener} if every limit allows it. An
   * admitted connection must be {@linkplain #release released} exactly once when it closes.
   */
  public synchronized Admission tryAcquire(String listener, InetAddress address) {
    int fromAddress = perAddress.getOrDefault(address, 0);
    if (fromAddress >= overrides.getOrDefault(address, maxConnectionsPerIp)) {
      return Admission.TOO_MANY_FROM_ADDRESS;
    }
    if (!slotAvailable(listener)) {
      return Admission.TOO_MANY_CONNECTIONS;
    }
    total++;
    int onListener = perListener.getOrDefault(listener, 0);
    perAddress.put(address, fromAddress + 1);
    perListener.put(listener, onListener + 1);
    return Admission.ADMITTED;
  }

  /** Whether a connection on {@code listener} would find a slot now (address limits aside). */
  public synchronized boolean slotAvailable(String listener) {
    return perListener.getOrDefault(listener, 0) < acceptLimits.of(listener).maxConnections()
        && (isProtected(listener) || total < maxConnections);
  }

  /** Forgets one admitted connection from {@code address} on {@code listener}. */
  public synchronized void release(String listener, InetAddress address) {
    perAddress.computeIfPresent(address, (a, count) -> count <= 1 ? null : count - 1);
    perListener.computeIfPresent(listener, (l, count) -> count <= 1 ? null : count - 1);
    total--;
  }

  /**
   * Records an admitted connection against the creation rates of its listener and of the broker,
   * and answers how long it must wait before it is served (0: at once). The rates let through a
   * second's worth of connections at once, then one every {@code 1 s / rate}.
   */
  public synchronized long throttleNanos(String listener) {
    long now = nanoClock.getAsLong();
    long wait = 0;
    CreationRate rate = listenerRates.get(listener);
    if (rate != null) {
      wait = rate.reserve(now);
    }
    if (!isProtected(listener)) {
      wait = Math.max(wait, brokerRate.reserve(now));
    }
    if (wait > 0) {
      throttled++;
    }
    return wait;
  }

  /**
   * How many connections the node holds beyond {@code max.connections}: only the exempt
   * inter-broker listener can take it there, and then Kafka closes the least recently used client
   * connections (KIP-402).
   */
  public synchronized int excessConnections() {
    return Math.max(0, total - maxConnections);
  }

  /** The listener exempt from the broker-wide limits, or null. */
  public String exemptListener() {
    return interBrokerProtected ? acceptLimits.interBrokerListener() : null;
  }

  private boolean isProtected(String listener) {
    return interBrokerProtected && listener.equals(acceptLimits.interBrokerListener());
  }

  public int maxConnections() {
    return maxConnections;
  }

  public int maxConnectionsPerIp() {
    return maxConnectionsPerIp;
  }

  /** Open connections counted, across all addresses. */
  public synchronized int connections() {
    return total;
  }

  /** Open connections counted from {@code address}. */
  public synchronized int connections(InetAddress address) {
    return perAddress.getOrDefault(address, 0);
  }

  /** Open connections counted on {@code listener}. */
  public synchronized int listenerConnections(String listener) {
    return perListener.getOrDefault(listener, 0);
  }

  /**
   * The {@code connection_creation_rate} quotas of {@code ip} entities (KIP-612), updated as the
   * quotas change.
   */
  public IpConnectionRates ipConnectionRates() {
    return ipRates;
  }

  /** Connections made to wait by a creation rate since start. */
  public synchronized long throttledConnections() {
    return throttled;
  }

  /**
   * Paces connections to a rate by giving each the next theoretical arrival time (a virtual
   * schedule): a connection is served once its slot is less than a window ahead of now.
   */
  private static final class CreationRate {
    private final long intervalNanos;
    private long nextSlotNanos;
    private boolean started;

    CreationRate(int perSecond) {
      // A rate of 0 would refuse every connection forever; Brook paces it as one a second.
      this.intervalNanos =
          perSecond == Integer.MAX_VALUE ? 0 : WINDOW_NANOS / Math.max(1, perSecond);
    }

    long reserve(long now) {
      if (intervalNanos == 0) {
        return 0;
      }
      if (!started || nextSlotNanos - now < 0) {
        nextSlotNanos = now;
        started = true;
      }
      nextSlotNanos += intervalNanos;
      return Math.max(0, nextSlotNanos - now - WINDOW_NANOS);
    }
  }
}
