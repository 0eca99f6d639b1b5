package io.brook.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.replica.fetcher.FollowerTruncation;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionChangeRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.storage.log.LogConfig;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker that restarts, leads a partition for a moment from the metadata it replays, and then
 * must follow the broker the controller elected next: two brokers' replica managers on real logs in
 * their own directories, fed images built by hand, and the follower's fetches made as the fetcher
 * thread makes them (the leader's {@link Partition#fetchFromFollower}, then append or truncate).
 */
class ReplicaManagerRejoinTest {
  private static final Uuid TOPIC_ID = Uuid.randomUuid();
  private static final TopicPartition TP = new TopicPartition("c8", 4);
  private static final List<Integer> ALL = List.of(1, 2, 3);

  /** More than enough: a diverged follower needs one fetch to truncate and one to catch up. */
  private static final int MAX_FETCHES = 10;

  @TempDir Path root;
  private final MockTime time = new MockTime();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Map<Integer, List<List<Integer>>> proposedIsrs = new ConcurrentHashMap<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    scheduler.shutdownNow();
  }

  /** Broker {@code id}'s replica manager on its directory, as (re)started. */
  private ReplicaManager start(int id) throws IOException {
    LogManager logs =
        LogManager.start(
            LogManagerConfig.defaults(List.of(root.resolve("node-" + id))),
            topic -> LogConfig.defaults(),
            time,
            scheduler);
    DelayedOperations delayed = new DelayedOperations();
    toClose.add(logs);
    toClose.add(delayed);
    IsrChangeSender isrChanges =
        (topicId, partition, leaderEpoch, partitionEpoch, newIsr) -> {
          proposedIsrs
              .computeIfAbsent(id, k -> new CopyOnWriteArrayList<>())
              .add(newIsr.stream().map(IsrChangeSender.Member::brokerId).toList());
          return new CompletableFuture<>();
        };
    return new ReplicaManager(
        id,
        logs,
        delayed,
        (image, topic) -> LogConfig.defaults(),
        Followers.NONE,
        isrChanges,
        30_000,
        time,
        new ManualScheduler(time));
  }

  private static MetadataImage image(List<MetadataRecord> records) {
    return MetadataImage.EMPTY.apply(records, records.size() - 1);
  }

  private static MemoryRecords batch(long offset, int epoch, int count) {
    SimpleRecord[] records = new SimpleRecord[count];
    for (int i = 0; i < count; i++) {
      records[i] = new SimpleRecord(("r" + (offset + i)).getBytes());
    }
    return MemoryRecords.withRecords(offset, Compression.NONE, epoch, records);
  }

  /**
   * One fetch of broker {@code followerId}'s {@code follower} from {@code leader}, as the replica
   * fetcher makes and handles it.
   */
  private static void fetchOnce(int followerId, Partition follower, Partition leader) {
    long fetchOffset = follower.log().logEndOffset();
    FollowerRead read =
        leader.fetchFromFollower(
            followerId,
            10 + followerId, // the broker epoch TestImages registers it with
            fetchOffset,
            follower.log().logStartOffset(),
            follower.log().latestEpoch().orElse(-1),
            1 << 20,
            true);
    if (read.diverged()) {
      FollowerTruncation.onDivergingEpoch(
          follower,
          new FetchResponseData.EpochEndOffset()
              .setEpoch(read.divergingEpoch().epoch())
              .setEndOffset(read.divergingEpoch().endOffset()));
    } else {
      follower.appendAsFollower(
          read.read().slice().copyToMemory(), read.highWatermark(), read.logStartOffset());
    }
  }

  @Test
  void aBrokerThatLedFromReplayedMetadataFollowsTheNextLeaderAndRejoinsTheIsr() throws Exception {
    // Given: broker 3 led c8-4 at epoch 0; broker 2 has 10 records of it, broker 1 the first 8
    List<MetadataRecord> records = new ArrayList<>(TestImages.registeredBrokers(ALL));
    records.add(new TopicRecord(TP.topic(), TOPIC_ID));
    for (int p = 0; p <= TP.partition(); p++) {
      records.add(new PartitionRecord(TOPIC_ID, p, ALL, ALL, 3, 0, 0));
    }
    ReplicaManager two = start(2);
    ReplicaManager one = start(1);
    two.applyMetadata(image(records));
    one.applyMetadata(image(records));
    two.partition(TP).orElseThrow().appendAsFollower(batch(0, 0, 8), 8, 0);
    two.partition(TP).orElseThrow().appendAsFollower(batch(8, 0, 2), 8, 0);
    one.partition(TP).orElseThrow().appendAsFollower(batch(0, 0, 8), 8, 0);

    // When broker 1 restarts and replays the election that made it leader at epoch 1 with ISR
    // [1, 2] (its new registration not yet seen by the controller)...
    toClose.remove(toClose.size() - 1).close();
    toClose.remove(toClose.size() - 1).close();
    one = start(1);
    records.add(
        new PartitionChangeRecord(
            TOPIC_ID, TP.partition(), Optional.of(List.of(1, 2)), Optional.of(1)));
    one.applyMetadata(image(records));
    assertThat(one.partition(TP).orElseThrow().isLeader()).isTrue();
    assertThat(one.partition(TP).orElseThrow().state().leaderEpoch()).isEqualTo(1);

    // ...and a moment later the controller moves the leadership to broker 2 at epoch 2, ISR [2]
    records.add(
        new PartitionChangeRecord(
            TOPIC_ID, TP.partition(), Optional.of(List.of(2)), Optional.of(2)));
    MetadataImage epoch2 = image(records);
    two.applyMetadata(epoch2);
    one.applyMetadata(epoch2);
    Partition leader = two.partition(TP).orElseThrow();
    Partition follower = one.partition(TP).orElseThrow();
    assertThat(leader.isLeader()).isTrue();
    assertThat(leader.state().leaderEpoch()).isEqualTo(2);
    assertThat(follower.isFollower()).isTrue();

    // Then broker 1's fetches bring its log level with the leader's, without its epoch 1 (no
    // record was written in it), and the leader proposes it back into the ISR
    for (int i = 0; i < MAX_FETCHES && follower.log().logEndOffset() < 10; i++) {
      fetchOnce(1, follower, leader);
    }
    fetchOnce(1, follower, leader); // the caught-up fetch that tells the leader where broker 1 is
    assertThat(follower.log().logEndOffset()).isEqualTo(10);
    assertThat(follower.log().latestEpoch().orElse(-1)).isZero();
    assertThat(proposedIsrs.get(2)).containsExactly(List.of(2, 1));
  }
}
