package io.brook.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.metrics.ReplicaManagerMetrics;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.storage.log.LogConfig;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication gauges and ISR meters on broker 1 of a three-broker image, with ISR changes
 * answered by hand and time moved by hand; and the same numbers read through JMX.
 */
class ReplicationMetricsTest {
  private static final Uuid TOPIC_ID = Uuid.randomUuid();
  private static final List<Integer> ALL = List.of(1, 2, 3);

  @TempDir Path dir;
  private final MockTime time = new MockTime();

  /** The controller's answer to the latest ISR change of each partition, by partition index. */
  private final Map<Integer, CompletableFuture<PartitionState>> isrChanges = new HashMap<>();

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final DelayedOperations delayed = new DelayedOperations();
  private LogManager logManager;
  private ReplicaManager replicas;

  @BeforeEach
  void setUp() throws Exception {
    LogConfig config = LogConfig.defaults().toBuilder().minInSyncReplicas(2).build();
    logManager =
        LogManager.start(LogManagerConfig.defaults(List.of(dir)), topic -> config, time, scheduler);
    IsrChangeSender sender =
        (topicId, partition, leaderEpoch, partitionEpoch, newIsr) -> {
          CompletableFuture<PartitionState> answer = new CompletableFuture<>();
          isrChanges.put(partition, answer);
          return answer;
        };
    replicas =
        new ReplicaManager(
            1,
            logManager,
            delayed,
            (image, topic) -> config,
            Followers.NONE,
            sender,
            30_000,
            time,
            new ManualScheduler(time));
  }

  @AfterEach
  void tearDown() throws Exception {
    delayed.close();
    logManager.close();
    scheduler.shutdownNow();
  }

  /**
   * Partitions of topic "t" as broker 1 sees them: p0 fully in sync, p1 at min ISR, p2 under min
   * ISR, p3 followed (led by 2), p4 not hosted here.
   */
  private void applyImage() {
    List<MetadataRecord> records = new ArrayList<>(TestImages.registeredBrokers(ALL));
    records.add(new TopicRecord("t", TOPIC_ID));
    records.add(new PartitionRecord(TOPIC_ID, 0, ALL, ALL, 1, 0, 0));
    records.add(new PartitionRecord(TOPIC_ID, 1, ALL, List.of(1, 2), 1, 0, 0));
    records.add(new PartitionRecord(TOPIC_ID, 2, ALL, List.of(1), 1, 0, 0));
    records.add(new PartitionRecord(TOPIC_ID, 3, List.of(2, 1, 3), List.of(2), 2, 0, 0));
    records.add(new PartitionRecord(TOPIC_ID, 4, List.of(2, 3), List.of(2, 3), 2, 0, 0));
    replicas.applyMetadata(MetadataImage.EMPTY.apply(records, records.size() - 1));
  }

  @Test
  void gaugesCountLedPartitionsByTheirIsr() {
    // Given
    applyImage();

    // When
    ReplicationMetrics.PartitionCounts counts = replicas.partitionCounts();

    // Then
    assertThat(counts).isEqualTo(new ReplicationMetrics.PartitionCounts(4, 3, 2, 1, 1));
  }

  @Test
  void committedShrinksAndExpandsAndRefusedChangesAreCounted() {
    // Given p0 and p1 with followers that never fetched
    applyImage();
    BrokerMetrics metrics = new BrokerMetrics(time);
    replicas.metrics().bind(metrics);

    // When replica.lag.time.max.ms passes, both propose a shrink to [1]; the controller commits
    // p0's and refuses p1's
    time.sleep(30_001);
    replicas.maybeShrinkIsrs();
    assertThat(isrChanges).containsOnlyKeys(0, 1);
    isrChanges.remove(0).complete(new PartitionState(1, 0, 1, ALL, List.of(1)));
    isrChanges.remove(1).completeExceptionally(new IllegalStateException("refused"));

    // Then
    assertThat(count(metrics, "IsrShrinksPerSec")).isEqualTo(1);
    assertThat(count(metrics, "FailedIsrUpdatesPerSec")).isEqualTo(1);
    assertThat(count(metrics, "IsrExpandsPerSec")).isZero();
    Partition p0 = replicas.partition(new TopicPartition("t", 0)).orElseThrow();
    assertThat(p0.state().isr()).containsExactly(1);
    assertThat(replicas.partitionCounts().underMinIsr()).isEqualTo(2);

    // When follower 2 catches up on p0 and the controller commits adding it back
    p0.updateFollowerFetchState(2, p0.log().logEndOffset(), 0, p0.log().logEndOffset(), 12);
    assertThat(isrChanges).containsOnlyKeys(0);
    isrChanges.remove(0).complete(new PartitionState(1, 0, 2, ALL, List.of(1, 2)));

    // Then
    assertThat(count(metrics, "IsrExpandsPerSec")).isEqualTo(1);
    assertThat(count(metrics, "IsrShrinksPerSec")).isEqualTo(1);
    assertThat(replicas.partitionCounts())
        .isEqualTo(new ReplicationMetrics.PartitionCounts(4, 3, 3, 1, 2));
  }

  @Test
  void mbeansUnderKafkasNamesShowTheNumbersUntilClosed() throws Exception {
    // Given
    applyImage();
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    // When
    try (BrokerMetrics metrics = new BrokerMetrics(time)) {
      ReplicaManagerMetrics.register(metrics, replicas, () -> 42, null);
      replicas.metrics().isrShrunk();
      // Then
      assertThat(value(server, "ReplicaManager,name=UnderReplicatedPartitions")).isEqualTo(2);
      assertThat(value(server, "ReplicaManager,name=UnderMinIsrPartitionCount")).isEqualTo(1);
      assertThat(value(server, "ReplicaManager,name=AtMinIsrPartitionCount")).isEqualTo(1);
      assertThat(value(server, "ReplicaManager,name=PartitionCount")).isEqualTo(4);
      assertThat(value(server, "ReplicaManager,name=LeaderCount")).isEqualTo(3);
      assertThat(
              server.getAttribute(
                  new ObjectName("kafka.server:type=ReplicaManager,name=IsrShrinksPerSec"),
                  "Count"))
          .isEqualTo(1L);
      assertThat(
              server.getAttribute(
                  new ObjectName("kafka.server:type=ReplicaManager,name=IsrExpandsPerSec"),
                  "Count"))
          .isEqualTo(0L);
      assertThat(
              server.getAttribute(
                  new ObjectName("kafka.server:type=ReplicaManager,name=FailedIsrUpdatesPerSec"),
                  "OneMinuteRate"))
          .isEqualTo(0.0);
      assertThat(value(server, "ReplicaFetcherManager,name=MaxLag,clientId=Replica"))
          .isEqualTo(42L);
      String tag = ",logDirectory=" + ObjectName.quote(dir.toString());
      assertThat(logValue(server, "LogManager,name=OfflineLogDirectoryCount")).isEqualTo(0);
      assertThat(logValue(server, "LogManager,name=LogDirectoryOffline" + tag)).isEqualTo(0);
      assertThat(logValue(server, "LogCleanerManager,name=uncleanable-partitions-count" + tag))
          .isEqualTo(0);
      assertThat(logValue(server, "LogCleanerManager,name=uncleanable-bytes" + tag)).isEqualTo(0L);

      // And when the directory fails, the log-directory gauges say so
      logManager.dirFailures().markOffline(dir, "a test", new java.io.IOException("simulated"));
      assertThat(logValue(server, "LogManager,name=OfflineLogDirectoryCount")).isEqualTo(1);
      assertThat(logValue(server, "LogManager,name=LogDirectoryOffline" + tag)).isEqualTo(1);
    }

    // Then closing unregisters them
    assertThat(server.queryNames(new ObjectName("kafka.server:*"), null)).isEmpty();
    assertThat(server.queryNames(new ObjectName("kafka.log:*"), null)).isEmpty();
  }

  private static long count(BrokerMetrics metrics, String meter) {
    Object value =
        metrics
            .registry()
            .metric(
                BrokerMetrics.name("kafka.server", "ReplicaManager", meter, BrokerMetrics.COUNT))
            .metricValue();
    return ((Number) value).longValue();
  }

  private static Object logValue(MBeanServer server, String typeAndName) throws Exception {
    return server.getAttribute(new ObjectName("kafka.log:type=" + typeAndName), "Value");
  }

  private static Object value(MBeanServer server, String typeAndName) throws Exception {
    return server.getAttribute(new ObjectName("kafka.server:type=" + typeAndName), "Value");
  }
}
