package io.brook.tests.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.broker.replica.Partition;
import io.brook.server.BrookServer;
import io.brook.storage.log.PartitionLog;
import io.brook.storage.log.ReplicaLog;
import io.brook.storage.remote.LocalFsSegmentStore;
import io.brook.storage.remote.RemoteSegmentStore;
import io.brook.testkit.EmbeddedBrookCluster;
import io.brook.tests.TestClients;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiered storage on three nodes sharing one local-filesystem store, with real kafka-clients:
 *
 * <ul>
 *   <li>followers keep local retention: once the leader has copied segments, a follower deletes its
 *       own copies of them (it reads the manifest);
 *   <li>a follower that was down while the leader tiered and deleted its local segments is answered
 *       OFFSET_MOVED_TO_TIERED_STORAGE, rebuilds its start (leader epochs, producer snapshot) from
 *       remote storage and replicates from the leader's local start, back into the ISR;
 *   <li>the leader stops; the new leader continues copying from the manifest while producing goes
 *       on: no segment is uploaded twice, the copies cover every offset, every record reads back
 *       from offset 0 byte for byte through the new leader, and the store holds exactly the objects
 *       the manifest names.
 * </ul>
 */
@Timeout(240)
class TieredClusterIT {
  private static final String TOPIC = "tiered-cluster";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static final int VALUE_BYTES = 4096;
  private static final int BATCH = 600;
  private static final long SEED = 1005;

  @TempDir Path tmp;

  @Test
  void followersAndALeaderChangeKeepTheRemoteCopyWholeAndExact() throws Exception {
    Path storeDir = tmp.resolve("store");
    EmbeddedBrookCluster.Builder builder = EmbeddedBrookCluster.builder().nodes(3);
    TieredClusters.brokerSettings(Map.of("rsm.config.dir", storeDir.toString()))
        .forEach(builder::config);
    try (EmbeddedBrookCluster cluster = builder.start();
        RemoteSegmentStore store = new LocalFsSegmentStore(storeDir);
        Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
      TieredClusters.createReplicated(admin, TOPIC, TieredClusters.topicSettings());
      // Take one follower down before anything is written.
      int leader = describe(admin).leader().id();
      List<Integer> followers = new ArrayList<>(cluster.nodeIds());
      followers.remove(Integer.valueOf(leader));
      int lagging = followers.get(0);
      int follower = followers.get(1);
      cluster.stop(lagging);

      long base = System.currentTimeMillis() - 3_600_000L;
      // Two producers: the first one's batches all end up below the lagging follower's new start,
      // so it can only know that producer from the remote producer snapshot.
      produce(cluster.bootstrapServers(), base, 0, BATCH / 2);
      produce(cluster.bootstrapServers(), base, BATCH / 2, BATCH / 2);

      // The leader copies and drops its local segments; the running follower drops its own too.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> localStart(cluster.server(leader)) > BATCH / 2);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> firstSegment(cluster.server(follower)) > BATCH / 2);

      // The follower that was down is below the leader's local start: it starts from remote state.
      cluster.restart(lagging);
      await().atMost(Duration.ofSeconds(60)).until(() -> describe(admin).isr().size() == 3);
      ReplicaLog rebuilt = log(cluster.server(lagging));
      assertThat(rebuilt.logStartOffset()).isGreaterThan(BATCH / 2);
      // Its producer state came from the remote snapshot: it knows both producers, as the leader.
      assertThat(rebuilt.activeProducers().keySet())
          .hasSize(2)
          .isEqualTo(log(cluster.server(leader)).activeProducers().keySet());

      // The leader goes; the new one carries on tiering while producing continues.
      cluster.stop(leader);
      TieredClusters.awaitLeaderOtherThan(admin, TOPIC, leader);
      produce(cluster.bootstrapServers(), base, BATCH, BATCH / 2);
      produce(cluster.bootstrapServers(), base, BATCH + BATCH / 2, BATCH / 2);
      TieredClusters.awaitTieredPast(admin, TP, BATCH + BATCH / 2, Duration.ofSeconds(60));

      checkEveryRecord(cluster.bootstrapServers(), 2 * BATCH);
      TopicIdPartition tieredTp = RemoteStoreChecks.withTopicId(admin, TP);
      checkStoreMatchesManifest(store, tieredTp);

      // Deleting the topic deletes its remote data: every segment and the manifest.
      admin.deleteTopics(List.of(TOPIC)).all().get();
      await().atMost(Duration.ofSeconds(30)).until(() -> store.listObjects(tieredTp).isEmpty());
    }
  }

  private static TopicPartitionInfo describe(Admin admin) throws Exception {
    return TieredClusters.describe(admin, TOPIC);
  }

  private static ReplicaLog log(BrookServer server) {
    return server.replicaManager().partition(TP).map(Partition::log).orElseThrow();
  }

  /** The base offset of the first local segment: what local retention has deleted. */
  private static long firstSegment(BrookServer server) {
    return ((PartitionLog) log(server)).segments().iterator().next().baseOffset();
  }

  private static long localStart(BrookServer server) {
    return log(server).logStartOffset();
  }

  private static byte[] value(Random random) {
    byte[] v = new byte[VALUE_BYTES];
    random.nextBytes(v);
    return v;
  }

  /** Records {@code from} to {@code from + count - 1}, by a new (idempotent) producer. */
  private static void produce(String bootstrap, long base, int from, int count) throws Exception {
    Random random = new Random(SEED + from);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(bootstrap)) {
      for (int i = from; i < from + count; i++) {
        producer.send(
            new ProducerRecord<>(
                TOPIC, 0, base + i, Integer.toString(i).getBytes(), value(random)));
      }
      producer.flush();
    }
  }

  private static void checkEveryRecord(String bootstrap, int total) {
    List<ConsumerRecord<byte[], byte[]>> records = TestClients.readAll(bootstrap, TOPIC, 1);
    assertThat(records).hasSize(total);
    Random random = null;
    for (int i = 0; i < total; i++) {
      if (i % (BATCH / 2) == 0) {
        random = new Random(SEED + i);
      }
      ConsumerRecord<byte[], byte[]> r = records.get(i);
      assertThat(r.offset()).isEqualTo(i);
      assertThat(new String(r.key())).isEqualTo(Integer.toString(i));
      assertThat(r.value()).as("value of offset %d", i).isEqualTo(value(random));
    }
  }

  /**
   * The manifest's finished segments cover the copied offsets without a gap, none is a re-upload of
   * offsets already covered, and the store holds exactly their objects and the manifest.
   */
  private static void checkStoreMatchesManifest(RemoteSegmentStore store, TopicIdPartition tp)
      throws Exception {
    assertThat(RemoteStoreChecks.storeHoldsContiguousSegmentsFromZero(store, tp, ""))
        .hasSizeGreaterThan(2);
  }
}
