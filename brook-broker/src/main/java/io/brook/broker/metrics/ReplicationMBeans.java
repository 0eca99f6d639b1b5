package io.brook.broker.metrics;

import io.brook.broker.fetch.FetchSessions;
import io.brook.broker.replica.Partition;
import io.brook.broker.replica.ReplicaManager;
import io.brook.broker.replica.ReplicationMetrics;
import io.brook.broker.replica.ReplicationMetrics.PartitionCounts;
import io.brook.protocol.metrics.MBeanRegistrations;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.manager.LogManager;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * Publishes a broker's replication metrics as JMX MBeans under Kafka's object names, so tools and
 * dashboards written for Kafka find them (docs/metrics.md lists them):
 *
 * <ul>
 *   <li>gauges ({@code Value}) under {@code kafka.server:type=ReplicaManager}, computed when read;
 *   <li>meters ({@code Count}, {@code OneMinuteRate}, {@code MeanRate}, {@code RateUnit}, {@code
 *       EventType}) for ISR shrinks, expands and failed updates;
 *   <li>{@code kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica} on a node that
 *       follows partitions;
 *   <li>the health of the log directories the replicas live in: {@code
 *       kafka.log:type=LogManager,name=OfflineLogDirectoryCount} and, per directory, {@code
 *       LogDirectoryOffline} and the cleaner's {@code uncleanable-partitions-count} and {@code
 *       uncleanable-bytes} ({@code kafka.log:type=LogCleanerManager});
 *   <li>the fetch sessions under {@code kafka.server:type=FetchSessionCache}.
 * </ul>
 *
 * <p>An object name is per JVM: when several nodes run in one JVM (embedded test clusters), the
 * first to register a name keeps it and the others log that they did not. {@link #close()}
 * unregisters what this instance registered.
 */
public final class ReplicationMBeans implements AutoCloseable {
  static final String REPLICA_MANAGER = "kafka.server:type=ReplicaManager,name=";
  static final String FETCH_SESSION_CACHE = "kafka.server:type=FetchSessionCache,name=";
  static final String MAX_LAG =
      "kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica";

  /** A gauge, as Yammer's JMX reporter (Kafka's) shows it. */
  public interface GaugeMBean {
    Object getValue();
  }

  /** A meter, as Yammer's JMX reporter shows it (without the 5- and 15-minute rates). */
  public interface MeterMBean {
    long getCount();

    double getOneMinuteRate();

    double getMeanRate();

    TimeUnit getRateUnit();

    String getEventType();
  }

  private final MBeanRegistrations registrations;

  private ReplicationMBeans(MBeanServer server) {
    this.registrations = new MBeanRegistrations(server);
  }

  /**
   * Registers the replication MBeans of one broker on the platform MBean server.
   *
   * @param maxLag the follower side's {@code MaxLag}, or null on a node that never follows
   */
  public static ReplicationMBeans register(ReplicaManager replicas, LongSupplier maxLag) {
    return register(ManagementFactory.getPlatformMBeanServer(), replicas, maxLag);
  }

  /** As {@link #register(ReplicaManager, LongSupplier)}, with the broker's fetch sessions. */
  public static ReplicationMBeans register(
      ReplicaManager replicas, LongSupplier maxLag, FetchSessions sessions) {
    ReplicationMBeans beans =
        register(ManagementFactory.getPlatformMBeanServer(), replicas, maxLag);
    beans.fetchSessionBeans(sessions);
    return beans;
  }

  /**
   * Kafka's fetch-session gauges and eviction meter, and two counters of Brook's own: Fetch
   * requests seen and the partitions they listed (their ratio shows what sessions save).
   */
  private void fetchSessionBeans(FetchSessions sessions) {
    add(FETCH_SESSION_CACHE + "NumIncrementalFetchSessions", () -> sessions.cache().size());
    add(
        FETCH_SESSION_CACHE + "NumIncrementalFetchPartitionsCached",
        () -> sessions.cache().partitionsCached());
    add(FETCH_SESSION_CACHE + "FetchRequests", sessions::requests);
    add(FETCH_SESSION_CACHE + "FetchRequestPartitions", sessions::listedPartitions);
    meter(
        FETCH_SESSION_CACHE + "IncrementalFetchSessionEvictionsPerSec",
        "evictions",
        sessions.cache().evictions());
  }

  static ReplicationMBeans register(
      MBeanServer server, ReplicaManager replicas, LongSupplier maxLag) {
    ReplicationMBeans beans = new ReplicationMBeans(server);
    beans.gauge("UnderReplicatedPartitions", replicas, PartitionCounts::underReplicated);
    beans.gauge("UnderMinIsrPartitionCount", replicas, PartitionCounts::underMinIsr);
    beans.gauge("AtMinIsrPartitionCount", replicas, PartitionCounts::atMinIsr);
    beans.gauge("PartitionCount", replicas, PartitionCounts::partitionCount);
    beans.gauge("LeaderCount", replicas, PartitionCounts::leaderCount);
    GaugeMBean lsoLag = () -> maxLastStableOffsetLag(replicas);
    beans.add(
        REPLICA_MANAGER + "MaxLastStableOffsetLag",
        new StandardMBean(lsoLag, GaugeMBean.class, false));
    ReplicationMetrics metrics = replicas.metrics();
    beans.meter(REPLICA_MANAGER + "IsrShrinksPerSec", "shrinks", metrics.isrShrinks());
    beans.meter(REPLICA_MANAGER + "IsrExpandsPerSec", "expands", metrics.isrExpands());
    beans.meter(
        REPLICA_MANAGER + "FailedIsrUpdatesPerSec", "failedUpdates", metrics.failedIsrUpdates());
    if (maxLag != null) {
      GaugeMBean lag = maxLag::getAsLong;
      beans.add(MAX_LAG, new StandardMBean(lag, GaugeMBean.class, false));
    }
    beans.logDirGauges(replicas.logManager());
    return beans;
  }

  /** Kafka's log-directory and cleaner gauges, computed when read. */
  private void logDirGauges(LogManager logs) {
    add("kafka.log:type=LogManager,name=OfflineLogDirectoryCount", logs::offlineLogDirectoryCount);
    for (Path dir : logs.logDirs()) {
      String tag = ",logDirectory=" + ObjectName.quote(dir.toString());
      add(
          "kafka.log:type=LogManager,name=LogDirectoryOffline" + tag,
          () -> logs.isLogDirOffline(dir) ? 1 : 0);
      add(
          "kafka.log:type=LogCleanerManager,name=uncleanable-partitions-count" + tag,
          () -> logs.cleaner().uncleanablePartitionsCount(dir));
      add(
          "kafka.log:type=LogCleanerManager,name=uncleanable-bytes" + tag,
          () -> logs.cleaner().uncleanableBytes(dir));
    }
  }

  private void add(String name, GaugeMBean gauge) {
    add(name, new StandardMBean(gauge, GaugeMBean.class, false));
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

  private void gauge(String name, ReplicaManager replicas, ToIntFunction<PartitionCounts> value) {
    GaugeMBean gauge = () -> value.applyAsInt(replicas.partitionCounts());
    add(REPLICA_MANAGER + name, new StandardMBean(gauge, GaugeMBean.class, false));
  }

  private void meter(String name, String eventType, Meter meter) {
    MeterMBean bean =
        new MeterMBean() {
          @Override
          public long getCount() {
            return meter.count();
          }

          @Override
          public double getOneMinuteRate() {
            return meter.oneMinuteRate();
          }

          @Override
          public double getMeanRate() {
            return meter.meanRate();
          }

          @Override
          public TimeUnit getRateUnit() {
            return TimeUnit.SECONDS;
          }

          @Override
          public String getEventType() {
            return eventType;
          }
        };
    add(name, new StandardMBean(bean, MeterMBean.class, false));
  }

  private void add(String name, StandardMBean bean) {
    registrations.add(name, bean);
  }

  @Override
  public void close() {
    registrations.close();
  }
}
