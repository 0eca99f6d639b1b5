package io.brook.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.broker.delayed.DelayedOperations;
import io.brook.broker.time.ManualScheduler;
import io.brook.broker.time.MockTime;
import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.MetadataRecord;
import io.brook.metadata.record.PartitionRecord;
import io.brook.metadata.record.TopicRecord;
import io.brook.storage.log.LogConfig;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.manager.LogManager;
import io.brook.storage.manager.LogManagerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica manager when one of two log directories fails for real (a file's name taken by a
 * non-empty directory): its partitions stop being fetched, answer KAFKA_STORAGE_ERROR and propose
 * no ISR change; those of the other directory carry on. A directory that fails at start-up leaves
 * its replicas unhosted, and they are listed for the controller.
 */
class ReplicaManagerLogDirFailureTest {
  private static final Uuid TOPIC_ID = Uuid.randomUuid();
  private static final List<Integer> ALL = List.of(1, 2, 3);

  @TempDir Path root;
  private final MockTime time = new MockTime();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final DelayedOperations delayed = new DelayedOperations();
  private final Set<TopicPartition> unfollowed = ConcurrentHashMap.newKeySet();
  private final Set<Integer> proposedShrinks = ConcurrentHashMap.newKeySet();
  private LogManager logManager;

  @AfterEach
  void tearDown() throws IOException {
    delayed.close();
    if (logManager != null) {
      logManager.close();
    }
    scheduler.shutdownNow();
  }

  private List<Path> dirs() {
    return List.of(root.resolve("a"), root.resolve("b"));
  }

  private ReplicaManager start() throws IOException {
    logManager =
        LogManager.start(
            LogManagerConfig.defaults(dirs()), topic -> LogConfig.defaults(), time, scheduler);
    Followers followers =
        new Followers() {
          @Override
          public void follow(Partition partition) {}

          @Override
          public void unfollow(TopicPartition tp) {
            unfollowed.add(tp);
          }
        };
    IsrChangeSender sender =
        (topicId, partition, leaderEpoch, partitionEpoch, newIsr) -> {
          proposedShrinks.add(partition);
          return new CompletableFuture<>();
        };
    return new ReplicaManager(
        1,
        logManager,
        delayed,
        (image, topic) -> LogConfig.defaults(),
        followers,
        sender,
        1,
        time,
        new ManualScheduler(time));
  }

  /** Broker 1 leads t-0 and t-1 and follows t-2 and t-3 (led by 2); all in sync. */
  private static MetadataImage image() {
    List<MetadataRecord> records = new ArrayList<>(TestImages.registeredBrokers(ALL));
    records.add(new TopicRecord("t", TOPIC_ID));
    for (int p = 0; p < 4; p++) {
      int leader = p < 2 ? 1 : 2;
      records.add(new PartitionRecord(TOPIC_ID, p, ALL, ALL, leader, 0, 0));
    }
    return MetadataImage.EMPTY.apply(records, records.size() - 1);
  }

  private static void block(Path file) throws IOException {
    Files.createDirectories(file);
    Files.writeString(file.resolve("in-the-way"), "x");
  }

  @Test
  void partitionsOfAFailedDirectoryStopServingAndFetchingAndProposeNoIsrChange() throws Exception {
    // Given: the four partitions spread over both directories
    ReplicaManager replicas = start();
    replicas.applyMetadata(image());
    Path failed = root.resolve("b");
    List<Integer> inFailed = replicas.partitionsIn(failed).get(TOPIC_ID);
    assertThat(inFailed).hasSize(2);
    Partition victim = replicas.partition(new TopicPartition("t", inFailed.get(0))).orElseThrow();

    // When a log there cannot roll its next segment
    victim
        .log()
        .appendAsFollower(
            MemoryRecords.withRecords(0L, Compression.NONE, new SimpleRecord("v".getBytes())));
    block(victim.log().dir().resolve("00000000000000000001.log"));
    PartitionLog victimLog = logManager.getLog(victim.topicPartition()).orElseThrow();
    assertThatThrownBy(victimLog::roll).isNotNull();

    // Then every partition of that directory goes offline and is no longer fetched
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              for (int p : inFailed) {
                TopicPartition tp = new TopicPartition("t", p);
                assertThat(replicas.partition(tp).orElseThrow().log().isOffline()).isTrue();
                assertThat(unfollowed).contains(tp);
              }
            });
    assertThat(replicas.offlinePartitionCount()).isEqualTo(2);

    // And a leader there answers KAFKA_STORAGE_ERROR and proposes no ISR shrink, while a leader
    // of the healthy directory does (its followers never fetched)
    time.sleep(10);
    replicas.maybeShrinkIsrs();
    for (int p = 0; p < 2; p++) {
      Partition leader = replicas.partition(new TopicPartition("t", p)).orElseThrow();
      if (inFailed.contains(p)) {
        assertThatThrownBy(leader::ensureLeader).isInstanceOf(KafkaStorageException.class);
        assertThat(proposedShrinks).doesNotContain(p);
      } else {
        leader.ensureLeader();
        assertThat(proposedShrinks).contains(p);
      }
    }
  }

  @Test
  void replicasOfADirectoryThatFailedAtStartAreNotHostedAndAreListed() throws Exception {
    // Given: the partitions written and cleanly closed
    ReplicaManager first = start();
    first.applyMetadata(image());
    List<Integer> inB = first.partitionsIn(root.resolve("b")).get(TOPIC_ID);
    logManager.close();
    logManager = null;
    delayed.close();

    // When one log of directory b cannot be read at the next start
    Path segment = root.resolve("b").resolve("t-" + inB.get(0)).resolve("00000000000000000000.log");
    Files.delete(segment);
    block(segment);
    ReplicaManager restarted = start();
    restarted.applyMetadata(image());

    // Then the replicas of b cannot serve (the unreadable one is not even hosted), and are those
    // to report to the controller; those of a serve
    assertThat(logManager.isLogDirOffline(root.resolve("b"))).isTrue();
    assertThat(restarted.offlineReplicas()).isEqualTo(Map.of(TOPIC_ID, inB));
    assertThat(restarted.partition(new TopicPartition("t", inB.get(0)))).isEmpty();
    for (int p = 0; p < 4; p++) {
      if (!inB.contains(p)) {
        assertThat(restarted.partition(new TopicPartition("t", p)).orElseThrow().log().isOffline())
            .isFalse();
      }
    }
  }
}
