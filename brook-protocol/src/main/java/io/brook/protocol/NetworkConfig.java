package io.brook.protocol;

import io.brook.protocol.memory.RequestMemoryPool;
import io.brook.protocol.network.AcceptLimits;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of the network layer, under the names and with the defaults Kafka brokers use.
 *
 * @param listeners {@code listeners}: where to accept connections (at least one, unique names)
 * @param socketRequestMaxBytes {@code socket.request.max.bytes}: largest request frame accepted;
 *     the length prefix is checked against it before any of the frame is buffered
 * @param maxConnections {@code max.connections}: open connections across all listeners; one more
 *     waits, unread, and its listener stops accepting until a connection closes
 * @param maxConnectionsPerIp {@code max.connections.per.ip}: open connections from one address; one
 *     more is closed as soon as it is accepted
 * @param connectionsMaxIdleMs {@code connections.max.idle.ms}: a connection with nothing read,
 *     written or in flight for this long is closed
 * @param numNetworkThreads {@code num.network.threads}: event-loop threads serving connections
 * @param queuedMaxRequests {@code queued.max.requests}: requests in flight on one connection before
 *     Brook stops reading from it. Kafka bounds its broker-wide request queue with this name; Brook
 *     has no such queue and applies the bound per connection.
 * @param queuedMaxRequestBytes {@code queued.max.request.bytes}: bytes of requests (frames being
 *     read and requests not yet answered) the whole broker holds before it stops reading from
 *     sockets; -1 means a quarter of the smaller of the JVM's maximum heap and direct memory
 *     ({@link #effectiveQueuedMaxRequestBytes()}). A frame larger than it is refused.
 * @param queuedMaxRequestBytesPerConnection {@code brook.queued.max.request.bytes.per.connection}:
 *     bytes of requests in flight on one connection before Brook stops reading from it (the request
 *     that crosses it is still read, so a single large request always gets through)
 * @param requestReceiveTimeoutMs {@code brook.request.receive.timeout.ms}: how long a request frame
 *     may take to arrive whole once its size prefix is read and its memory reserved; a slower one
 *     closes its connection, so a client trickling bytes cannot hold request memory forever
 * @param maxConnectionsPerIpOverrides {@code max.connections.per.ip.overrides}: the limit for
 *     particular hosts or addresses instead of {@code max.connections.per.ip} (host names are
 *     resolved when the listeners are bound)
 * @param acceptLimits per-listener connection limits, creation rates and the inter-broker
 *     listener's exemption
 * @param socketSendBufferBytes {@code socket.send.buffer.bytes}: {@code SO_SNDBUF} of every
 *     accepted connection; -1 leaves the operating system's default (Linux then sizes it itself)
 * @param socketReceiveBufferBytes {@code socket.receive.buffer.bytes}: {@code SO_RCVBUF} of every
 *     listening socket, which the connections it accepts inherit (set before the handshake, so the
 *     window scale they agree fits it); -1 leaves the operating system's default
 */
public record NetworkConfig(
    List<Listener> listeners,
    int socketRequestMaxBytes,
    int maxConnections,
    int maxConnectionsPerIp,
    long connectionsMaxIdleMs,
    int numNetworkThreads,
    int queuedMaxRequests,
    long queuedMaxRequestBytes,
    long queuedMaxRequestBytesPerConnection,
    long requestReceiveTimeoutMs,
    Map<String, Integer> maxConnectionsPerIpOverrides,
    AcceptLimits acceptLimits,
    int socketSendBufferBytes,
    int socketReceiveBufferBytes) {

  /** Kafka's default {@code socket.request.max.bytes}: 100 MiB. */
  public static final int DEFAULT_SOCKET_REQUEST_MAX_BYTES = 100 * 1024 * 1024;

  public static final int DEFAULT_MAX_CONNECTIONS = Integer.MAX_VALUE;
  public static final int DEFAULT_MAX_CONNECTIONS_PER_IP = Integer.MAX_VALUE;

  /** Kafka's default {@code connections.max.idle.ms}: 10 minutes. */
  public static final long DEFAULT_CONNECTIONS_MAX_IDLE_MS = 10 * 60 * 1000L;

  public static final int DEFAULT_NUM_NETWORK_THREADS = 3;
  public static final int DEFAULT_QUEUED_MAX_REQUESTS = 500;

  /** {@code queued.max.request.bytes} = -1: derived from the JVM's memory. */
  public static final long DEFAULT_QUEUED_MAX_REQUEST_BYTES = -1L;

  /** {@code brook.queued.max.request.bytes.per.connection}: 16 MiB. */
  public static final long DEFAULT_QUEUED_MAX_REQUEST_BYTES_PER_CONNECTION = 16L * 1024 * 1024;

  /** {@code brook.request.receive.timeout.ms}: 60 s, twice kafka-clients' request.timeout.ms. */
  public static final long DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS = 60_000L;

  /** Kafka's default {@code socket.send.buffer.bytes}: 100 KiB. */
  public static final int DEFAULT_SOCKET_SEND_BUFFER_BYTES = 100 * 1024;

  /** Kafka's default {@code socket.receive.buffer.bytes}: 100 KiB. */
  public static final int DEFAULT_SOCKET_RECEIVE_BUFFER_BYTES = 100 * 1024;

  /** A socket buffer size that leaves the operating system's default, as in Kafka. */
  public static final int OS_DEFAULT_BUFFER_BYTES = -1;

  public NetworkConfig {
    Objects.requireNonNull(listeners, "listeners");
    listeners = List.copyOf(listeners);
    if (listeners.isEmpty()) {
      throw new IllegalArgumentException("listeners must name at least one listener");
    }
    Set<String> names = new HashSet<>();
    for (Listener listener : listeners) {
      if (!names.add(listener.name())) {
        throw new IllegalArgumentException("listener " + listener.name() + " is listed twice");
      }
    }
    requirePositive("socket.request.max.bytes", socketRequestMaxBytes);
    requirePositive("max.connections", maxConnections);
    requirePositive("max.connections.per.ip", maxConnectionsPerIp);
    requirePositive("connections.max.idle.ms", connectionsMaxIdleMs);
    requirePositive("num.network.threads", numNetworkThreads);
    requirePositive("queued.max.requests", queuedMaxRequests);
    if (queuedMaxRequestBytes != -1) {
      requirePositive("queued.max.request.bytes", queuedMaxRequestBytes);
    }
    requirePositive(
        "brook.queued.max.request.bytes.per.connection", queuedMaxRequestBytesPerConnection);
    requirePositive("brook.request.receive.timeout.ms", requestReceiveTimeoutMs);
    requireBufferSize("socket.send.buffer.bytes", socketSendBufferBytes);
    requireBufferSize("socket.receive.buffer.bytes", socketReceiveBufferBytes);
    maxConnectionsPerIpOverrides = Map.copyOf(maxConnectionsPerIpOverrides);
    Objects.requireNonNull(acceptLimits, "acceptLimits");
    maxConnectionsPerIpOverrides.forEach(
        (host, limit) -> {
          if (limit < 0) {
            throw new IllegalArgumentException(
                "max.connections.per.ip.overrides: negative limit for " + host);
          }
        });
  }

  /**
   * Parses Kafka's {@code max.connections.per.ip.overrides}: {@code host:limit} or {@code ip:limit}
   * pairs separated by commas (the limit follows the last colon, so IPv6 addresses work).
   */
  public static Map<String, Integer> parseOverrides(String value) {
    Map<String, Integer> overrides = new java.util.LinkedHashMap<>();
    if (value == null) {
      return overrides;
    }
    for (String pair : value.split(",")) {
      String trimmed = pair.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      int colon = trimmed.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(
            "max.connections.per.ip.overrides: expected host:limit, was " + trimmed);
      }
      try {
        overrides.put(
            trimmed.substring(0, colon).trim(), Integer.parseInt(trimmed.substring(colon + 1)));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "max.connections.per.ip.overrides: limit is not an integer in " + trimmed, e);
      }
    }
    return overrides;
  }

  /** The request-memory budget in bytes: {@code queued.max.request.bytes}, -1 resolved. */
  public long effectiveQueuedMaxRequestBytes() {
    return queuedMaxRequestBytes == -1
        ? RequestMemoryPool.defaultCapacity()
        : queuedMaxRequestBytes;
  }

  /** Kafka's defaults for everything but the listeners. */
  public static NetworkConfig defaults(List<Listener> listeners) {
    return builder().listeners(listeners).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads the settings from broker properties under Kafka's names; absent ones take Kafka's
   * defaults. {@code listeners} is required, in Kafka's form {@code NAME://host:port,...}.
   */
  public static NetworkConfig fromProperties(Map<String, ?> properties) {
    Object listeners = properties.get("listeners");
    if (listeners == null) {
      throw new IllegalArgumentException("listeners is required");
    }
    return new NetworkConfig(
        Listener.parseList(listeners.toString()),
        intProperty(properties, "socket.request.max.bytes", DEFAULT_SOCKET_REQUEST_MAX_BYTES),
        intProperty(properties, "max.connections", DEFAULT_MAX_CONNECTIONS),
        intProperty(properties, "max.connections.per.ip", DEFAULT_MAX_CONNECTIONS_PER_IP),
        longProperty(properties, "connections.max.idle.ms", DEFAULT_CONNECTIONS_MAX_IDLE_MS),
        intProperty(properties, "num.network.threads", DEFAULT_NUM_NETWORK_THREADS),
        intProperty(properties, "queued.max.requests", DEFAULT_QUEUED_MAX_REQUESTS),
        longProperty(properties, "queued.max.request.bytes", DEFAULT_QUEUED_MAX_REQUEST_BYTES),
        longProperty(
            properties,
            "brook.queued.max.request.bytes.per.connection",
            DEFAULT_QUEUED_MAX_REQUEST_BYTES_PER_CONNECTION),
        longProperty(
            properties, "brook.request.receive.timeout.ms", DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS),
        parseOverrides(
            properties.get("max.connections.per.ip.overrides") == null
                ? null
                : properties.get("max.connections.per.ip.overrides").toString()),
        new AcceptLimits(
            intProperty(properties, "max.connection.creation.rate", Integer.MAX_VALUE),
            Map.of(),
            null),
        intProperty(properties, "socket.send.buffer.bytes", DEFAULT_SOCKET_SEND_BUFFER_BYTES),
        intProperty(
            properties, "socket.receive.buffer.bytes", DEFAULT_SOCKET_RECEIVE_BUFFER_BYTES));
  }

  /** The listener with this name. */
  public Listener listener(String name) {
    for (Listener listener : listeners) {
      if (listener.name().equals(name)) {
        return listener;
      }
    }
    throw new IllegalArgumentException("no listener named " + name);
  }

  private static int intProperty(Map<String, ?> properties, String name, int defaultValue) {
    Object value = properties.get(name);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(value.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " is not an integer: " + value, e);
    }
  }

  private static long longProperty(Map<String, ?> properties, String name, long defaultValue) {
    Object value = properties.get(name);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Long.parseLong(value.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " is not an integer: " + value, e);
    }
  }

  /** -1 (the operating system's default) or a size; the socket layer refuses 0 and below. */
  private static void requireBufferSize(String name, int value) {
    if (value != OS_DEFAULT_BUFFER_BYTES && value <= 0) {
      throw new IllegalArgumentException(
          name + " must be positive, or -1 for the operating system's default, was " + value);
    }
  }

  private static void requirePositive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }

  /**
   * One endpoint to accept connections on.
   *
   * @param name the listener name, e.g. {@code PLAINTEXT} (Brook speaks plaintext only so far)
   * @param host the address to bind; empty binds every interface (Kafka's {@code
   *     PLAINTEXT://:9092})
   * @param port the port; 0 picks a free ephemeral port, see {@link
   *     io.brook.protocol.network.KafkaNetworkServer#boundPort}
   */
  public record Listener(String name, String host, int port) {
    public Listener {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(host, "host");
      if (name.isEmpty()) {
        throw new IllegalArgumentException("listener name must not be empty");
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("listener " + name + " has port out of range: " + port);
      }
    }

    /** Parses one listener in Kafka's form {@code NAME://host:port}; IPv6 hosts in brackets. */
    public static Listener parse(String spec) {
      String trimmed = spec.trim();
      int schemeEnd = trimmed.indexOf("://");
      int portSeparator = trimmed.lastIndexOf(':');
      if (schemeEnd <= 0 || portSeparator < schemeEnd + 3) {
        throw new IllegalArgumentException("listener is not NAME://host:port: " + spec);
      }
      String host = trimmed.substring(schemeEnd + 3, portSeparator);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(trimmed.substring(portSeparator + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("listener has no numeric port: " + spec, e);
      }
      return new Listener(trimmed.substring(0, schemeEnd), host, port);
    }

    /** Parses Kafka's comma-separated {@code listeners} value. */
    public static List<Listener> parseList(String specs) {
      List<Listener> listeners = new ArrayList<>();
      for (String spec : specs.split(",")) {
        if (!spec.isBlank()) {
          listeners.add(parse(spec));
        }
      }
      return listeners;
    }

    @Override
    public String toString() {
      return name + "://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /** Builds a {@link NetworkConfig} starting from Kafka's defaults. */
  public static final class Builder {
    private final List<Listener> listeners = new ArrayList<>();
    private int socketRequestMaxBytes = DEFAULT_SOCKET_REQUEST_MAX_BYTES;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private int maxConnectionsPerIp = DEFAULT_MAX_CONNECTIONS_PER_IP;
    private long connectionsMaxIdleMs = DEFAULT_CONNECTIONS_MAX_IDLE_MS;
    private int numNetworkThreads = DEFAULT_NUM_NETWORK_THREADS;
    private int queuedMaxRequests = DEFAULT_QUEUED_MAX_REQUESTS;
    private long queuedMaxRequestBytes = DEFAULT_QUEUED_MAX_REQUEST_BYTES;
    private long queuedMaxRequestBytesPerConnection =
        DEFAULT_QUEUED_MAX_REQUEST_BYTES_PER_CONNECTION;
    private long requestReceiveTimeoutMs = DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS;
    private Map<String, Integer> maxConnectionsPerIpOverrides = Map.of();
    private AcceptLimits acceptLimits = AcceptLimits.NONE;
    private int socketSendBufferBytes = DEFAULT_SOCKET_SEND_BUFFER_BYTES;
    private int socketReceiveBufferBytes = DEFAULT_SOCKET_RECEIVE_BUFFER_BYTES;

    private Builder() {}

    public Builder listener(String name, String host, int port) {
      listeners.add(new Listener(name, host, port));
      return this;
    }

    public Builder listeners(List<Listener> all) {
      listeners.addAll(all);
      return this;
    }

    public Builder socketRequestMaxBytes(int value) {
      socketRequestMaxBytes = value;
      return this;
    }

    public Builder maxConnections(int value) {
      maxConnections = value;
      return this;
    }

    public Builder maxConnectionsPerIp(int value) {
      maxConnectionsPerIp = value;
      return this;
    }

    public Builder connectionsMaxIdleMs(long value) {
      connectionsMaxIdleMs = value;
      return this;
    }

    public Builder numNetworkThreads(int value) {
      numNetworkThreads = value;
      return this;
    }

    public Builder queuedMaxRequests(int value) {
      queuedMaxRequests = value;
      return this;
    }

    public Builder queuedMaxRequestBytes(long value) {
      queuedMaxRequestBytes = value;
      return this;
    }

    public Builder queuedMaxRequestBytesPerConnection(long value) {
      queuedMaxRequestBytesPerConnection = value;
      return this;
    }

    public Builder requestReceiveTimeoutMs(long value) {
      requestReceiveTimeoutMs = value;
      return this;
    }

    public Builder maxConnectionsPerIpOverrides(Map<String, Integer> value) {
      maxConnectionsPerIpOverrides = value;
      return this;
    }

    public Builder acceptLimits(AcceptLimits value) {
      acceptLimits = value;
      return this;
    }

    public Builder socketSendBufferBytes(int value) {
      socketSendBufferBytes = value;
      return this;
    }

    public Builder socketReceiveBufferBytes(int value) {
      socketReceiveBufferBytes = value;
      return this;
    }

    public NetworkConfig build() {
      return new NetworkConfig(
          listeners,
          socketRequestMaxBytes,
          maxConnections,
          maxConnectionsPerIp,
          connectionsMaxIdleMs,
          numNetworkThreads,
          queuedMaxRequests,
          queuedMaxRequestBytes,
          queuedMaxRequestBytesPerConnection,
          requestReceiveTimeoutMs,
          maxConnectionsPerIpOverrides,
          acceptLimits,
          socketSendBufferBytes,
          socketReceiveBufferBytes);
    }
  }
}
