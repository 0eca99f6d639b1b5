package io.brook.server;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.image.PartitionImage;
import io.brook.metadata.image.TopicImage;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.InterNodeEventLoops;
import io.brook.protocol.client.NodeResponse;
import io.brook.server.config.BrokerConfig;
import io.brook.server.http.Forwarder;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The HTTP API's way to other brokers: leaders and topic ids from this node's metadata image, and
 * two clients of the inter-broker listener (as this node, like its replica fetchers and transaction
 * markers): one for fetches, which the leader may park for their {@code max_wait_ms}, and one for
 * the rest, so a parked fetch never holds back a forwarded produce's answer (answers on one
 * connection come back in order).
 */
final class HttpForwarder implements Forwarder {
  /** Requests in flight on one connection, and queued behind them; more fail at once. */
  private static final int MAX_IN_FLIGHT = 64;

  private static final int MAX_QUEUED = 256;

  private final Supplier<MetadataImage> image;
  private final String listener;
  private final InterNodeClient requests;
  private final InterNodeClient fetches;

  HttpForwarder(
      Supplier<MetadataImage> image, InterNodeEventLoops loops, BrokerConfig config, NodeTls tls) {
    this(image, loops, config, tls, "brook-http-forwarder", MAX_IN_FLIGHT, MAX_QUEUED);
  }

  /**
   * @param clientId the connections' client id (the fetch connection's gets {@code -fetch})
   * @param maxInFlight requests in flight on one connection
   * @param maxQueued requests queued behind them; more fail at once
   */
  HttpForwarder(
      Supplier<MetadataImage> image,
      InterNodeEventLoops loops,
      BrokerConfig config,
      NodeTls tls,
      String clientId,
      int maxInFlight,
      int maxQueued) {
    this.image = image;
    this.listener = config.interBrokerListenerName();
    this.requests =
        new InterNodeClient(
            loops,
            InterNodeClients.builder(config, tls, clientId).bounds(maxInFlight, maxQueued).build());
    this.fetches =
        new InterNodeClient(
            loops,
            InterNodeClients.builder(config, tls, clientId + "-fetch")
                .bounds(maxInFlight, maxQueued)
                .build());
  }

  @Override
  public int leader(String topic, int partition) {
    return image
        .get()
        .partition(topic, partition)
        .map(PartitionImage::leader)
        .orElse(PartitionImage.NO_LEADER);
  }

  @Override
  public Uuid topicId(String topic) {
    return image.get().topic(topic).map(TopicImage::id).orElse(Uuid.ZERO_UUID);
  }

  @Override
  public String topicName(Uuid id) {
    return image.get().topic(id).map(TopicImage::name).orElse(null);
  }

  @Override
  public CompletableFuture<ApiMessage> send(
      int nodeId, ApiKeys key, ApiMessage request, int timeoutMs, boolean longPoll) {
    Node node =
        image
            .get()
            .broker(nodeId)
            .flatMap(b -> b.endpoint(listener))
            .map(e -> new Node(nodeId, e.host(), e.port()))
            .orElse(null);
    if (node == null) {
      return CompletableFuture.failedFuture(
          new BrokerNotAvailableException(
              "broker " + nodeId + " has no " + listener + " listener in this node's metadata"));
    }
    return (longPoll ? fetches : requests)
        .send(node, key, version -> request, timeoutMs)
        .thenApply(NodeResponse::data);
  }

  @Override
  public void close() {
    requests.close();
    fetches.close();
  }
}
