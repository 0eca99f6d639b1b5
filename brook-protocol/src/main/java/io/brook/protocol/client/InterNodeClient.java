package io.brook.protocol.client;

import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * An asynchronous Kafka-protocol client to other nodes, on brook-protocol's codec and a shared,
 * bounded set of event loops ({@link InterNodeEventLoops}). One connection per node; each
 * connection negotiates versions with ApiVersions when it is set up, and every request goes out at
 * the highest version both sides know.
 *
 * <p>Futures complete on the connection's event loop: stages chained on them must not block (use
 * the {@code *Async} variants, or wait from another thread). They fail with Kafka's retriable
 * errors: {@link DisconnectException} when the connection fails, is lost or is closed (every
 * request it carried), {@link org.apache.kafka.common.errors.TimeoutException} after the request
 * timeout, {@link RequestQueueFullException} at once when the connection's queue is full; with
 * {@link org.apache.kafka.common.errors.UnsupportedVersionException} (not retriable) when the peer
 * serves no common version.
 *
 * <p>Every request must be one the peer answers (no Produce with acks=0). Users that must not share
 * a connection's ordering (a fetch held open by the leader delays every response behind it) use
 * separate clients, as Kafka's replica fetchers and marker sender use separate network clients.
 */
public final class InterNodeClient implements AutoCloseable {
  private final InterNodeEventLoops loops;
  private final InterNodeClientConfig config;
  private final ConnectionSecurity security;
  private final Map<Integer, NodeConnection> connections = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @throws IllegalArgumentException for a security protocol not implemented yet
   */
  public InterNodeClient(InterNodeEventLoops loops, InterNodeClientConfig config) {
    this.loops = loops;
    this.config = config;
    this.security = ConnectionSecurity.of(config);
  }

  public InterNodeClientConfig config() {
    return config;
  }

  /** Sends with the configured request timeout. */
  public CompletableFuture<NodeResponse> send(Node node, ApiKeys apiKey, RequestBuilder request) {
    return send(node, apiKey, request, config.requestTimeoutMs());
  }

  /**
   * Queues {@code request} for {@code node} (connecting first if needed) and returns its answer.
   * Never blocks.
   *
   * @param node the peer; a changed host or port closes the old connection
   * @param request builds the body at the negotiated version, on the event loop
   * @param timeoutMs from now until the answer, waiting for the connection included
   */
  public CompletableFuture<NodeResponse> send(
      Node node, ApiKeys apiKey, RequestBuilder request, int timeoutMs) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new DisconnectException("the inter-node client is closed"));
    }
    return connection(node.id()).send(node.host(), node.port(), apiKey, request, timeoutMs);
  }

  /**
   * Closes the connection to {@code nodeId}, failing what it carries; the next send reconnects at
   * once (no back-off). For a request the caller gives up on that the peer may hold open.
   */
  public void disconnect(int nodeId) {
    NodeConnection connection = connections.get(nodeId);
    if (connection != null) {
      connection.disconnect();
    }
  }

  /** The connection to {@code nodeId}, IDLE if there is none. */
  public ConnectionStatus status(int nodeId) {
    NodeConnection connection = connections.get(nodeId);
    return connection == null
        ? new ConnectionStatus(ConnectionPhase.IDLE, 0, 0, 0)
        : connection.status();
  }

  /** The channel to {@code nodeId} now, null when there is none (for tests of its options). */
  Channel channel(int nodeId) {
    NodeConnection connection = connections.get(nodeId);
    return connection == null ? null : connection.channel();
  }

  private NodeConnection connection(int nodeId) {
    return connections.computeIfAbsent(
        nodeId, id -> new NodeConnection(id, loops, config, security));
  }

  /** Closes every connection and fails what they carry; the shared event loops stay. */
  @Override
  public void close() {
    closed = true;
    connections.values().forEach(NodeConnection::close);
  }
}
