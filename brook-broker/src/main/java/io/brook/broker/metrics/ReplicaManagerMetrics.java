package io.brook.broker.metrics;

import io.brook.broker.fetch.FetchSessions;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.replica.ReplicationMetrics.PartitionCounts;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.manager.LogManager;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.metrics.Sensor;

/**
 * Registers a broker's replication metrics in its {@link BrokerMetrics} under Kafka's names
 * (docs/operations.md lists them):
 *
 * <ul>
 *   <li>gauges under {@code kafka.server:type=ReplicaManager}, computed when read, and the ISR
 *       meters and BrokerTopicMetrics the replica manager records ({@link
 *       io.brook.broker.replica.ReplicationMetrics#bind});
 *   <li>{@code kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica} on a node that
 *       follows partitions;
 *   <li>the health of the log directories: {@code
 *       kafka.log:type=LogManager,name=OfflineLogDirectoryCount} and, per directory, {@code
 *       LogDirectoryOffline} and the cleaner's {@code uncleanable-partitions-count} and {@code
 *       uncleanable-bytes} ({@code kafka.log:type=LogCleanerManager}); the cleaner's lag, {@code
 *       max-dirty-percent} and {@code kafka.log:type=LogCleaner,name=max-compaction-delay-secs};
 *       the flush times, {@code kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs};
 *   <li>the fetch sessions under {@code kafka.server:type=FetchSessionCache}.
 * </ul>
 */
public final class ReplicaManagerMetrics {
  private static final String SERVER = "kafka.server";
  private static final String LOG = "kafka.log";
  private static final String REPLICA_MANAGER = "ReplicaManager";
  private static final String FETCH_SESSION_CACHE = "FetchSessionCache";

  private ReplicaManagerMetrics() {}

  /**
   * Registers the replication metrics of one broker.
   *
   * @param maxLag the follower side's {@code MaxLag}, or null on a node that never follows
   */
  public static void register(
      BrokerMetrics metrics, ReplicaManager replicas, LongSupplier maxLag, FetchSessions sessions) {
    gauge(metrics, "UnderReplicatedPartitions", replicas, PartitionCounts::underReplicated);
    gauge(metrics, "UnderMinIsrPartitionCount", replicas, PartitionCounts::underMinIsr);
    gauge(metrics, "AtMinIsrPartitionCount", replicas, PartitionCounts::atMinIsr);
    gauge(metrics, "PartitionCount", replicas, PartitionCounts::partitionCount);
    gauge(metrics, "LeaderCount", replicas, PartitionCounts::leaderCount);
    metrics.gauge(
        SERVER, REPLICA_MANAGER, "MaxLastStableOffsetLag", () -> maxLastStableOffsetLag(replicas));
    replicas.metrics().bind(metrics);
    if (maxLag != null) {
      metrics.gauge(
          SERVER, "ReplicaFetcherManager", "MaxLag", maxLag::getAsLong, "clientId", "Replica");
    }
    logDirGauges(metrics, replicas.logManager());
    if (sessions != null) {
      fetchSessionGauges(metrics, sessions);
    }
  }

  /**
   * Kafka's fetch-session gauges and eviction count, and two counters of Brook's own: Fetch
   * requests seen and the partitions they listed (their ratio shows what sessions save).
   */
  private static void fetchSessionGauges(BrokerMetrics metrics, FetchSessions sessions) {
    metrics.gauge(
        SERVER, FETCH_SESSION_CACHE, "NumIncrementalFetchSessions", () -> sessions.cache().size());
    metrics.gauge(
        SERVER,
        FETCH_SESSION_CACHE,
        "NumIncrementalFetchPartitionsCached",
        () -> sessions.cache().partitionsCached());
    metrics.gauge(SERVER, FETCH_SESSION_CACHE, "FetchRequests", sessions::requests);
    metrics.gauge(
        SERVER, FETCH_SESSION_CACHE, "FetchRequestPartitions", sessions::listedPartitions);
    metrics.gauge(
        SERVER, FETCH_SESSION_CACHE, "FollowerFetchQuietPartitions", sessions::quietPartitions);
    metrics.gauge(
        BrokerMetrics.name(
            SERVER,
            FETCH_SESSION_CACHE,
            "IncrementalFetchSessionEvictionsPerSec",
            BrokerMetrics.COUNT),
        () -> sessions.cache().evictions());
  }

  /** Kafka's log-directory and cleaner gauges, computed when read. */
  private static void logDirGauges(BrokerMetrics metrics, LogManager logs) {
    metrics.gauge(LOG, "LogManager", "OfflineLogDirectoryCount", logs::offlineLogDirectoryCount);
    Sensor flushTimes = metrics.histogram(LOG, "LogFlushStats", "LogFlushRateAndTimeMs");
    logs.flushStats().listen(nanos -> flushTimes.record(nanos / 1_000_000.0));
    metrics.gauge(
        LOG,
        "LogCleanerManager",
        "max-dirty-percent",
        () -> logs.cleaner().lag().maxDirtyPercent());
    metrics.gauge(
        LOG,
        "LogCleaner",
        "max-compaction-delay-secs",
        () -> logs.cleaner().lag().maxCompactionDelaySecs());
    for (Path dir : logs.logDirs()) {
      String path = dir.toString();
      metrics.gauge(
          LOG,
          "LogManager",
          "LogDirectoryOffline",
          () -> logs.isLogDirOffline(dir) ? 1 : 0,
          "logDirectory",
          path);
      metrics.gauge(
          LOG,
          "LogCleanerManager",
          "uncleanable-partitions-count",
          () -> logs.cleaner().uncleanablePartitionsCount(dir),
          "logDirectory",
          path);
      metrics.gauge(
          LOG,
          "LogCleanerManager",
          "uncleanable-bytes",
          () -> logs.cleaner().uncleanableBytes(dir),
          "logDirectory",
          path);
    }
  }

  /**
   * The largest gap, in offsets, between the high watermark and the last stable offset over the
   * partitions this broker leads: a transaction left open (a hung or very slow producer, a
   * coordinator that cannot write its markers) holds read_committed consumers back by that much.
   */
  static long maxLastStableOffsetLag(ReplicaManager replicas) {
    long max = 0;
    for (Partition partition : replicas.partitions()) {
      if (partition.isLeader()) {
        ReplicaLog log = partition.log();
        max = Math.max(max, log.highWatermark() - log.lastStableOffset());
      }
    }
    return max;
  }

  private static void gauge(
      BrokerMetrics metrics,
      String name,
      ReplicaManager replicas,
      ToIntFunction<PartitionCounts> value) {
    metrics.gauge(
        SERVER, REPLICA_MANAGER, name, () -> value.applyAsInt(replicas.partitionCounts()));
  }
}
