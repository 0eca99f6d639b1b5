package io.brook.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.FenceBrokerRecord;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.RemoveTopicRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata changes that move thousands of partitions at once, as after a broker restart or a
 * controller failover: applied without an fsync per partition, and visiting only the topics that
 * changed.
 */
class ReplicaManagerMetadataBatchTest {
  private static final List<Integer> ALL = List.of(1, 2, 3);
  private static final int PARTITIONS = 10;

  @TempDir Path root;
  private final MockTime time = new MockTime();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final DelayedOperations delayed = new DelayedOperations();
  private final AtomicInteger configLookups = new AtomicInteger();

  /** Called with each topic whose config the manager looks up, i.e. as it applies that topic. */
  private final AtomicReference<Consumer<String>> applyingTopic =
      new AtomicReference<>(topic -> {});

  /** The ISRs proposed to the controller, in order. */
  private final List<List<Integer>> proposedIsrs = new CopyOnWriteArrayList<>();

  private final List<Uuid> topicIds = new ArrayList<>();

  /** What the replica manager asked of its followers, in order. */
  private final List<String> followerCalls = new ArrayList<>();

  private LogManager logManager;

  @AfterEach
  void tearDown() throws IOException {
    delayed.close();
    if (logManager != null) {
      logManager.close();
    }
    scheduler.shutdownNow();
  }

  private ReplicaManager start() throws IOException {
    logManager =
        LogManager.start(
            LogManagerConfig.defaults(List.of(root)),
            topic -> LogConfig.defaults(),
            time,
            scheduler);
    Followers followers =
        new Followers() {
          @Override
          public void follow(Partition partition) {
            followerCalls.add("follow");
          }

          @Override
          public void unfollow(TopicPartition tp) {}

          @Override
          public void imageApplied() {
            followerCalls.add("imageApplied");
          }
        };
    IsrChangeSender sender =
        (topicId, partition, leaderEpoch, partitionEpoch, newIsr) -> {
          proposedIsrs.add(newIsr.stream().map(IsrChangeSender.Member::brokerId).toList());
          return new CompletableFuture<>();
        };
    return new ReplicaManager(
        1,
        logManager,
        delayed,
        (image, topic) -> {
          configLookups.incrementAndGet();
          applyingTopic.get().accept(topic);
          return LogConfig.defaults();
        },
        followers,
        sender,
        1,
        time,
        new ManualScheduler(time));
  }

  /** {@code topics} x PARTITIONS partitions on brokers 1, 2, 3, all led by broker 2. */
  private MetadataImage followingEverything(int topics) {
    List<MetadataRecord> records = new ArrayList<>(TestImages.registeredBrokers(ALL));
    for (int t = 0; t < topics; t++) {
      Uuid id = Uuid.randomUuid();
      topicIds.add(id);
      records.add(new TopicRecord("t" + t, id));
      for (int p = 0; p < PARTITIONS; p++) {
        records.add(new PartitionRecord(id, p, ALL, ALL, 2, 0, 0));
      }
    }
    return MetadataImage.EMPTY.apply(records, records.size() - 1);
  }

  /** {@code image} with the leader of the given topics' partitions moved to {@code leader}. */
  private static MetadataImage withLeader(MetadataImage image, List<Uuid> topics, int leader) {
    List<MetadataRecord> changes = new ArrayList<>();
    for (Uuid id : topics) {
      for (int p = 0; p < PARTITIONS; p++) {
        changes.add(new PartitionChangeRecord(id, p, Optional.empty(), Optional.of(leader)));
      }
    }
    return image.apply(changes, image.offset() + changes.size());
  }

  @Test
  void aThousandPartitionsBecomeLeaderAndFollowerWithoutAnFsyncEach() throws Exception {
    // Given: broker 1 follows 1,000 partitions (one metadata change for all of them; the count is
    // kept small for the build, the rule does not depend on it)
    ReplicaManager replicas = start();
    MetadataImage following = followingEverything(100);
    replicas.applyMetadata(following);

    // When one metadata change makes it the leader of all of them, and the next a follower again
    MetadataImage leading = withLeader(following, topicIds, 1);
    replicas.applyMetadata(leading);
    List<Boolean> ledAfterFirst = new ArrayList<>();
    for (Partition partition : replicas.partitions()) {
      ledAfterFirst.add(partition.isLeader());
    }
    replicas.applyMetadata(withLeader(leading, topicIds, 3));

    // Then each became leader in the new epoch (recorded in its leader-epoch checkpoint) and then
    // follower, and no partition's checkpoint was forced to disk on the way
    assertThat(ledAfterFirst).hasSize(1_000).containsOnly(true);
    for (Partition partition : replicas.partitions()) {
      PartitionLog log = logManager.getLog(partition.topicPartition()).orElseThrow();
      assertThat(partition.isFollower()).isTrue();
      assertThat(log.leaderEpochCache().latestEpoch()).hasValue(1);
      assertThat(log.leaderEpochCache().checkpointSyncCount()).isZero();
    }
  }

  @Test
  void whileABatchIsAppliedIsrEligibilityIsJudgedByTheWholeBatch() throws Exception {
    // Given: broker 1 leads two topics' partitions, replicas and ISR 1, 2, 3
    ReplicaManager replicas = start();
    List<MetadataRecord> records = new ArrayList<>(TestImages.registeredBrokers(ALL));
    List<Uuid> ids = List.of(Uuid.randomUuid(), Uuid.randomUuid());
    for (int t = 0; t < ids.size(); t++) {
      records.add(new TopicRecord("led" + t, ids.get(t)));
      records.add(new PartitionRecord(ids.get(t), 0, ALL, ALL, 1, 0, 0));
    }
    MetadataImage leading = MetadataImage.EMPTY.apply(records, records.size() - 1);
    replicas.applyMetadata(leading);

    // When: one batch fences broker 3 (its controlled shutdown) and drops it from both ISRs, and
    // broker 3's last fetch reaches the partition applied first while the second is applied
    List<MetadataRecord> shutdown = new ArrayList<>();
    shutdown.add(new FenceBrokerRecord(3, 13));
    for (Uuid id : ids) {
      shutdown.add(new PartitionChangeRecord(id, 0, Optional.of(List.of(1, 2)), Optional.empty()));
    }
    List<String> applied = new ArrayList<>();
    applyingTopic.set(
        topic -> {
          applied.add(topic);
          if (applied.size() == 2) {
            Partition first =
                replicas.partition(new TopicPartition(applied.get(0), 0)).orElseThrow();
            assertThat(first.state().isr()).containsExactly(1, 2);
            first.updateFollowerFetchState(3, 0, 0, 0, 13);
          }
        });
    replicas.applyMetadata(leading.apply(shutdown, leading.offset() + shutdown.size()));

    // Then: the fenced broker was not proposed back into the ISR
    assertThat(applied).hasSize(2);
    assertThat(proposedIsrs).isEmpty();
  }

  @Test
  void theFetchersHearOnceAfterAWholeImageThatMovedManyLeaders() throws Exception {
    // Given a broker following 100 partitions led by broker 2
    ReplicaManager replicas = start();
    MetadataImage following = followingEverything(10);
    replicas.applyMetadata(following);
    followerCalls.clear();

    // When one image moves all their leaderships to broker 3
    replicas.applyMetadata(withLeader(following, topicIds, 3));

    // Then every partition follows its new leader, and only then are the fetchers told the image
    // is applied (a fetch in flight is cut short once per fetcher, not once per partition)
    assertThat(followerCalls).hasSize(10 * PARTITIONS + 1);
    assertThat(followerCalls.subList(0, 10 * PARTITIONS)).containsOnly("follow");
    assertThat(followerCalls.get(10 * PARTITIONS)).isEqualTo("imageApplied");
  }

  @Test
  void aChangeOfOneTopicVisitsOnlyThatTopic() throws Exception {
    // Given
    ReplicaManager replicas = start();
    MetadataImage following = followingEverything(100);
    replicas.applyMetadata(following);
    assertThat(configLookups.get()).isEqualTo(100);
    configLookups.set(0);

    // When
    replicas.applyMetadata(withLeader(following, List.of(topicIds.get(7)), 1));

    // Then
    assertThat(configLookups.get()).isEqualTo(1);
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(replicas.partition(new TopicPartition("t7", p)).orElseThrow().isLeader()).isTrue();
      assertThat(replicas.partition(new TopicPartition("t8", p)).orElseThrow().isLeader())
          .isFalse();
    }
  }

  @Test
  void aDeletedTopicIsRemovedAndTheOthersKept() throws Exception {
    // Given
    ReplicaManager replicas = start();
    MetadataImage following = followingEverything(100);
    replicas.applyMetadata(following);

    // When
    MetadataImage without =
        following.apply(List.of(new RemoveTopicRecord(topicIds.get(3))), following.offset() + 1);
    replicas.applyMetadata(without);

    // Then
    assertThat(replicas.partition(new TopicPartition("t3", 0))).isEmpty();
    assertThat(logManager.getLog(new TopicPartition("t3", 0))).isEmpty();
    assertThat(replicas.partitions()).hasSize(99 * PARTITIONS);
  }
}
