package io.brook.broker.replica.fetcher;

import io.brook.broker.quota.ReplicationQuota;
import io.brook.broker.replica.Followers;
import io.brook.broker.replica.Partition;
import io.brook.protocol.client.ConnectionSecurity;
import io.brook.protocol.client.InterNodeClient;
import io.brook.protocol.client.InterNodeClientConfig;
import io.brook.protocol.client.InterNodeEventLoops;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The follower side of replication on one broker: {@code num.replica.fetchers} fetcher threads per
 * leader broker, each fetching its share of that leader's partitions (chosen by partition hash, as
 * in Kafka). A partition is moved to the right thread whenever its leader changes; threads left
 * without partitions stop.
 */
public final class ReplicaFetcherManager implements Followers, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReplicaFetcherManager.class);

  private final int brokerId;
  private final LongSupplier brokerEpoch;
  private final IntFunction<Optional<Node>> leaderNode;
  private final ReplicaFetchConfig config;
  private final ReplicationQuota throttle;
  private final Time time;
  private final InterNodeEventLoops loops;
  private final InterNodeClientConfig connections;
  private volatile TieredFollowerStart tieredStart = TieredFollowerStart.EMPTY;
  private final Map<FetcherKey, ReplicaFetcherThread> fetchers = new HashMap<>();
  private final Map<TopicPartition, FetcherKey> assignments = new HashMap<>();

  /** Fetchers to cut short once the image being applied is (see {@link #imageApplied}). */
  private final Set<ReplicaFetcherThread> fetchAgainAfterImage = new LinkedHashSet<>();

  private boolean closed;

  private record FetcherKey(int leaderId, int index) {}

  /**
   * @param brokerEpoch this broker's registration epoch, sent with each fetch (KIP-903)
   * @param leaderNode the inter-broker endpoint of a broker, from the current metadata
   * @param loops the node's inter-node event loops, shared by every fetcher's connections
   * @param connections how fetchers connect (set-up timeouts, reconnect back-off, security); each
   *     fetcher thread gets its own client under its thread name, one fetch in flight at a time
   * @param throttle the follower side of the replication throttle (KIP-73): a throttled replica
   *     that is not caught up is left out of fetches while the throttled replicas' rate is over it
   * @throws IllegalArgumentException if the inter-broker listener's security protocol is one the
   *     inter-node client does not speak yet
   */
  public ReplicaFetcherManager(
      int brokerId,
      LongSupplier brokerEpoch,
      IntFunction<Optional<Node>> leaderNode,
      ReplicaFetchConfig config,
      Time time,
      InterNodeEventLoops loops,
      InterNodeClientConfig connections,
      ReplicationQuota throttle) {
    this.throttle = throttle;
    this.brokerId = brokerId;
    this.brokerEpoch = brokerEpoch;
    this.leaderNode = leaderNode;
    this.config = config;
    this.time = time;
    this.loops = loops;
    this.connections = connections;
    // Refused now rather than when the first fetcher starts: a protocol no fetcher could speak.
    ConnectionSecurity.of(connections);
  }

  /** How followers of tiered partitions start at the leader's local log start. */
  public void tieredFollowerStart(TieredFollowerStart start) {
    tieredStart = start;
  }

  /** Fetches {@code partition} from its current leader, moving it from another leader's thread. */
  @Override
  public synchronized void follow(Partition partition) {
    if (closed) {
      return;
    }
    TopicPartition tp = partition.topicPartition();
    int leaderId = partition.state().leader();
    FetcherKey key = new FetcherKey(leaderId, Math.floorMod(tp.hashCode(), config.numFetchers()));
    FetcherKey current = assignments.get(tp);
    if (current != null && !current.equals(key)) {
      removeFrom(current, tp);
    }
    ReplicaFetcherThread fetcher = fetchers.computeIfAbsent(key, this::startFetcher);
    // A partition whose leader changed (a failover, a leader handing over: acks=all writes wait
    // for this follower) cuts short the fetch in flight, once the whole image is applied (see
    // imageApplied). A new partition (leader epoch 0, as while topics are created) joins the next
    // round, or creating thousands of partitions would restart the fetch thousands of times.
    boolean leaderChanged =
        current == null ? partition.state().leaderEpoch() > 0 : !current.equals(key);
    fetcher.add(partition);
    if (leaderChanged) {
      fetchAgainAfterImage.add(fetcher);
    }
    assignments.put(tp, key);
  }

  /**
   * Cuts short the fetch in flight of every fetcher a partition whose leader changed joined in the
   * image just applied: once per fetcher, not once per partition. A restarted broker following
   * 24,000 partitions from the first image otherwise abandoned its fetch at each of them, and each
   * leader still read every fetch it had been sent, thousands of partitions each.
   */
  @Override
  public synchronized void imageApplied() {
    for (ReplicaFetcherThread fetcher : fetchAgainAfterImage) {
      fetcher.fetchAgainNow();
    }
    fetchAgainAfterImage.clear();
  }

  /** Stops fetching {@code tp} (it became leader, lost its leader, or left this broker). */
  @Override
  public synchronized void unfollow(TopicPartition tp) {
    FetcherKey current = assignments.remove(tp);
    if (current != null) {
      removeFrom(current, tp);
    }
  }

  /**
   * Makes every fetcher give up its fetch in flight and fetch again at once: what the fetches carry
   * changed for all partitions (this broker's epoch, after it registered).
   */
  public synchronized void fetchAgainNow() {
    for (ReplicaFetcherThread fetcher : fetchers.values()) {
      fetcher.fetchAgainNow();
    }
  }

  /** Partitions being fetched, for tests and metrics. */
  public synchronized int followedPartitions() {
    return assignments.size();
  }

  /**
   * Kafka's {@code ReplicaFetcherManager MaxLag}: the largest lag, in offsets, of a followed
   * partition behind its leader's high watermark as of the partition's last fetch response.
   */
  public synchronized long maxLag() {
    long max = 0;
    for (ReplicaFetcherThread fetcher : fetchers.values()) {
      max = Math.max(max, fetcher.maxLag());
    }
    return max;
  }

  private void removeFrom(FetcherKey key, TopicPartition tp) {
    ReplicaFetcherThread fetcher = fetchers.get(key);
    if (fetcher == null) {
      return;
    }
    fetcher.remove(tp);
    if (fetcher.isIdle()) {
      fetchers.remove(key);
      fetcher.shutdown();
    }
  }

  private ReplicaFetcherThread startFetcher(FetcherKey key) {
    String name = "brook-replica-fetcher-" + key.leaderId() + "-" + key.index();
    ReplicaFetcherThread fetcher =
        new ReplicaFetcherThread(
            name,
            key.leaderId(),
            brokerId,
            brokerEpoch,
            leaderNode,
            config,
            throttle,
            time,
            new InterNodeClient(loops, fetcherConnections(name)),
            () -> tieredStart);
    fetcher.start();
    log.info("Started replica fetcher leaderId={} index={}", key.leaderId(), key.index());
    return fetcher;
  }

  /**
   * A fetcher's connection: its own, so a fetch the leader holds open delays no other traffic; one
   * fetch in flight and none queued (the thread waits for each answer); responses as large as the
   * leader may send, and the follower's receive buffer.
   */
  private InterNodeClientConfig fetcherConnections(String name) {
    return connections.toBuilder()
        .clientId(name)
        .requestTimeoutMs(config.socketTimeoutMs())
        .bounds(1, 0)
        .receiveBufferBytes(config.socketReceiveBufferBytes())
        .build();
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (ReplicaFetcherThread fetcher : fetchers.values()) {
      fetcher.shutdown();
    }
    for (ReplicaFetcherThread fetcher : fetchers.values()) {
      try {
        fetcher.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    fetchers.clear();
    assignments.clear();
  }
}
