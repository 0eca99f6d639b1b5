package io.brook.server;

import io.brook.metadata.image.MetadataImage;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.InterNodeClientConfig;
import io.brook.protocol.client.InterNodeEventLoops;
import io.brook.server.config.BrokerConfig;
import java.util.function.Supplier;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;

/** The inter-node client's settings, read from the broker configuration under Kafka's names. */
final class InterNodeClients {
  /**
   * Transaction markers: one request in flight per broker (the sender sends the next only after the
   * answer), so a short queue is plenty.
   */
  private static final int MARKER_QUEUE = 8;

  private static final int SHARE_STATE_IN_FLIGHT = 5;
  private static final int SHARE_STATE_QUEUE = 1_000;

  private InterNodeClients() {}

  /**
   * The node's outgoing event loops: as many as {@code num.network.threads}, at most one per core;
   * they only frame bytes and match answers.
   */
  static InterNodeEventLoops startLoops(BrokerConfig config) {
    int cores = Runtime.getRuntime().availableProcessors();
    return InterNodeEventLoops.start(Math.max(1, Math.min(config.numNetworkThreads(), cores)));
  }

  /** Connections to other brokers' inter-broker listener (per-user bounds are set by each user). */
  static InterNodeClientConfig connections(BrokerConfig config, NodeTls tls, String clientId) {
    return builder(config, tls, clientId).bounds(1, MARKER_QUEUE).build();
  }

  /** As {@link #connections}, the bounds left to the caller. */
  static InterNodeClientConfig.Builder builder(BrokerConfig config, NodeTls tls, String clientId) {
    SecurityProtocol protocol =
        config
            .securityProtocolMap()
            .getOrDefault(config.interBrokerListenerName(), SecurityProtocol.PLAINTEXT);
    return InterNodeClientConfig.builder(clientId)
        .securityProtocol(protocol)
        .sasl(SaslListeners.isSasl(protocol) ? SaslListeners.interBrokerCredentials(config) : null)
        .tls(tls.interBrokerClient())
        .connectionSetupTimeout(
            longValue(config, "socket.connection.setup.timeout.ms"),
            longValue(config, "socket.connection.setup.timeout.max.ms"))
        .reconnectBackoff(
            longValue(config, "reconnect.backoff.ms"),
            longValue(config, "reconnect.backoff.max.ms"))
        .requestTimeoutMs(Math.max(1, (int) longValue(config, "request.timeout.ms")))
        .maxResponseBytes(config.socketRequestMaxBytes());
  }

  /** The transaction markers' client. */
  static InterNodeClient markers(InterNodeEventLoops loops, BrokerConfig config, NodeTls tls) {
    return new InterNodeClient(loops, connections(config, tls, "brook-txn-markers"));
  }

  /** Transaction verifications (KIP-890): also one request in flight per broker. */
  static InterNodeClient txnVerifier(InterNodeEventLoops loops, BrokerConfig config, NodeTls tls) {
    return new InterNodeClient(loops, connections(config, tls, "brook-txn-verifier"));
  }

  /**
   * The lag metrics' reads of the partitions other brokers lead: one request in flight per leader,
   * each round given at most the request timeout and the lag interval.
   */
  static LeaderLagReads lagReads(
      InterNodeEventLoops loops, BrokerConfig config, NodeTls tls, Supplier<MetadataImage> image) {
    return lagReads(loops, config, tls, image, "brook-lag", config.lagMetricsIntervalMs());
  }

  /**
   * The web console's own reads of the leaders' ends for a page's groups (its own connections and
   * timestamp cache, so a console page never delays or thins the lag metrics' round), each read
   * given at most the request timeout and {@code maxRoundMs}.
   */
  static LeaderLagReads consoleLagReads(
      InterNodeEventLoops loops,
      BrokerConfig config,
      NodeTls tls,
      Supplier<MetadataImage> image,
      long maxRoundMs) {
    return lagReads(loops, config, tls, image, "brook-console-lag", maxRoundMs);
  }

  private static LeaderLagReads lagReads(
      InterNodeEventLoops loops,
      BrokerConfig config,
      NodeTls tls,
      Supplier<MetadataImage> image,
      String clientId,
      long maxRoundMs) {
    InterNodeClient client = new InterNodeClient(loops, connections(config, tls, clientId));
    long roundTimeoutMs = Math.min(maxRoundMs, longValue(config, "request.timeout.ms"));
    return new LeaderLagReads(
        client,
        image,
        config.interBrokerListenerName(),
        config.nodeId(),
        config.defaultLogConfig(),
        roundTimeoutMs,
        Time.SYSTEM);
  }

  /**
   * Share-partition state reads and writes at the share coordinators: one call in flight per
   * share-partition, so a broker may have many for one coordinator; beyond the queue a call fails
   * at once and the share-partition tries again on its next change or sweep.
   */
  static InterNodeClient shareState(InterNodeEventLoops loops, BrokerConfig config, NodeTls tls) {
    return new InterNodeClient(
        loops,
        builder(config, tls, "brook-share-state")
            .bounds(SHARE_STATE_IN_FLIGHT, SHARE_STATE_QUEUE)
            .build());
  }

  /**
   * Share groups' dead-letter writes (Produce, and the Fetch that looks for a record after a failed
   * attempt) to the leaders of their dead-letter partitions, bounded as the state calls are.
   */
  static InterNodeClient shareDeadLetters(
      InterNodeEventLoops loops, BrokerConfig config, NodeTls tls) {
    return new InterNodeClient(
        loops,
        builder(config, tls, "brook-share-dlq")
            .bounds(SHARE_STATE_IN_FLIGHT, SHARE_STATE_QUEUE)
            .build());
  }

  static long retryBackoffMs(BrokerConfig config) {
    return longValue(config, "retry.backoff.ms");
  }

  static long retryBackoffMaxMs(BrokerConfig config) {
    return longValue(config, "retry.backoff.max.ms");
  }

  private static long longValue(BrokerConfig config, String name) {
    return ((Number) config.value(name)).longValue();
  }
}
