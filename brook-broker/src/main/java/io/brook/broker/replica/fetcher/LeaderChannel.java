package io.brook.broker.replica.fetcher;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Map;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.BootstrapConfiguration;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.network.PlaintextChannelBuilder;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * One follower's connection to one leader broker: kafka-clients' {@link NetworkClient}, used the
 * way Kafka's own replica fetcher uses it (blocking send and receive, one request in flight, the
 * request version negotiated with ApiVersions).
 */
final class LeaderChannel implements AutoCloseable {
  private final NetworkClient client;
  private final Metrics metrics;
  private final Time time;
  private final int socketTimeoutMs;
  private volatile boolean abandonRequested;

  LeaderChannel(String clientId, ReplicaFetchConfig config, Time time) {
    this.time = time;
    this.socketTimeoutMs = config.socketTimeoutMs();
    this.metrics = new Metrics(time);
    LogContext logContext = new LogContext("[" + clientId + "] ");
    PlaintextChannelBuilder channelBuilder =
        new PlaintextChannelBuilder(ListenerName.normalised(config.listenerName()));
    channelBuilder.configure(Map.of());
    Selector selector =
        new Selector(600_000L, metrics, time, "replica-fetcher", channelBuilder, logContext);
    this.client =
        new NetworkClient(
            selector,
            new ManualMetadataUpdater(),
            clientId,
            1,
            50,
            1_000,
            Selectable.USE_DEFAULT_BUFFER_SIZE,
            config.socketReceiveBufferBytes(),
            config.socketTimeoutMs(),
            config.socketTimeoutMs(),
            config.socketTimeoutMs(),
            time,
            true,
            new ApiVersions(),
            logContext,
            MetadataRecoveryStrategy.NONE,
            BootstrapConfiguration.DISABLED,
            false);
  }

  /** A send given up because the fetcher's partitions changed (see {@link #abandonInFlight}). */
  static final class AbandonedException extends IOException {
    private static final long serialVersionUID = 1L;

    AbandonedException() {
      super("fetch abandoned: the fetcher's partitions changed");
    }
  }

  /**
   * Sends {@code request} to {@code leader} and waits for the answer, unless {@link
   * #abandonInFlight} is called meanwhile.
   *
   * @throws AbandonedException when abandoned (the connection is dropped: the leader may still be
   *     holding the fetch open for up to {@code replica.fetch.wait.max.ms})
   * @throws IOException when the leader cannot be reached or the connection drops
   */
  ClientResponse send(Node leader, AbstractRequest.Builder<?> request) throws IOException {
    if (!NetworkClientUtils.awaitReady(client, leader, time, socketTimeoutMs)) {
      throw new SocketTimeoutException(
          "no connection to broker " + leader + " within " + socketTimeoutMs + " ms");
    }
    ClientRequest clientRequest =
        client.newClientRequest(
            leader.idString(), request, time.milliseconds(), true, socketTimeoutMs, null);
    client.send(clientRequest, time.milliseconds());
    while (true) {
      for (ClientResponse response : client.poll(socketTimeoutMs, time.milliseconds())) {
        if (response.requestHeader().correlationId() != clientRequest.correlationId()) {
          continue; // not ours
        }
        if (response.wasDisconnected()) {
          throw new IOException("connection to broker " + leader + " was lost before the response");
        }
        if (response.versionMismatch() != null) {
          throw new IOException(
              "broker " + leader + " refused the request version", response.versionMismatch());
        }
        return response;
      }
      if (abandonRequested) {
        // close, not disconnect: a disconnected node counts as failed, and the next send's
        // awaitReady would throw instead of reconnecting.
        client.close(leader.idString());
        throw new AbandonedException();
      }
    }
  }

  /**
   * Makes the send in progress (on the fetcher thread) give up at once. Called when a partition
   * joins the fetcher, so it need not wait for a fetch the leader may hold open for up to {@code
   * replica.fetch.wait.max.ms}: after a leader change, that wait would hold acks=all writes.
   */
  void abandonInFlight() {
    abandonRequested = true;
    client.wakeup();
  }

  /** Called by the fetcher thread before it chooses what the next send carries. */
  void clearAbandon() {
    abandonRequested = false;
  }

  /** Drops the connection to {@code leader}, so the next send reconnects (and re-resolves). */
  void disconnect(Node leader) {
    client.close(leader.idString());
  }

  /** Interrupts a blocked send (for shutdown). */
  void wakeup() {
    client.wakeup();
  }

  @Override
  public void close() throws IOException {
    client.close();
    metrics.close();
  }
}
