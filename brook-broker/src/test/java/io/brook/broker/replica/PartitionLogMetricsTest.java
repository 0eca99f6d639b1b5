package io.brook.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.metrics.PartitionLogMetrics;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RemoveTopicRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.storage.log.LogConfig;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's per-partition log gauges follow the partitions broker 1 hosts, image after image: those
 * of a new topic appear, those of a deleted one go, the others stay.
 */
class PartitionLogMetricsTest {
  private static final List<Integer> ALL = List.of(1, 2, 3);
  private static final Uuid A = Uuid.randomUuid();
  private static final Uuid B = Uuid.randomUuid();

  @TempDir Path dir;
  private final MockTime time = new MockTime();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final DelayedOperations delayed = new DelayedOperations();
  private LogManager logManager;
  private ReplicaManager replicas;
  private BrokerMetrics metrics;
  private PartitionLogMetrics gauges;
  private MetadataImage image = MetadataImage.EMPTY;

  @BeforeEach
  void setUp() throws Exception {
    LogConfig config = LogConfig.defaults();
    logManager =
        LogManager.start(LogManagerConfig.defaults(List.of(dir)), topic -> config, time, scheduler);
    replicas =
        new ReplicaManager(
            1,
            logManager,
            delayed,
            (image, topic) -> config,
            Followers.NONE,
            (topicId, partition, leaderEpoch, partitionEpoch, newIsr) -> new CompletableFuture<>(),
            30_000,
            time,
            new ManualScheduler(time));
    metrics = new BrokerMetrics(time);
    gauges = new PartitionLogMetrics(metrics, replicas);
    apply(new ArrayList<>(TestImages.registeredBrokers(ALL)));
  }

  @AfterEach
  void tearDown() throws Exception {
    metrics.close();
    delayed.close();
    logManager.close();
    scheduler.shutdownNow();
  }

  /** The records applied by the replica manager, then by the gauges, as the publisher does. */
  private void apply(List<MetadataRecord> records) {
    image = image.apply(records, image.offset() + records.size());
    replicas.applyMetadata(image);
    gauges.accept(image);
  }

  /** Topic {@code name}: partition 0 on brokers 1-3, partition 1 on brokers 2 and 3 only. */
  private static List<MetadataRecord> topic(String name, Uuid id) {
    return List.of(
        new TopicRecord(name, id),
        new PartitionRecord(id, 0, ALL, ALL, 1, 0, 0),
        new PartitionRecord(id, 1, List.of(2, 3), List.of(2, 3), 2, 0, 0));
  }

  /** "topic-partition" of every LogEndOffset gauge registered. */
  private TreeSet<String> logEndGauges() {
    TreeSet<String> found = new TreeSet<>();
    for (MetricName name : metrics.registry().metrics().keySet()) {
      if ("LogEndOffset".equals(name.tags().get("name"))) {
        found.add(name.tags().get("topic") + "-" + name.tags().get("partition"));
      }
    }
    return found;
  }

  @Test
  void theGaugesFollowTheHostedPartitionsAsTopicsComeAndGo() {
    // When: topic a, then topic b
    apply(topic("a", A));
    assertThat(logEndGauges()).containsExactly("a-0");
    apply(topic("b", B));

    // Then: a gauge per hosted partition (partition 1 of each is not hosted on broker 1)
    assertThat(logEndGauges()).containsExactly("a-0", "b-0");

    // When: topic a is deleted
    apply(List.of(new RemoveTopicRecord(A)));

    // Then: its gauges go, b's stay and read the log
    assertThat(logEndGauges()).containsExactly("b-0");
    Object value =
        metrics.registry().metrics().entrySet().stream()
            .filter(e -> "LogEndOffset".equals(e.getKey().tags().get("name")))
            .findFirst()
            .orElseThrow()
            .getValue()
            .metricValue();
    assertThat(((Number) value).longValue()).isZero();
  }
}
