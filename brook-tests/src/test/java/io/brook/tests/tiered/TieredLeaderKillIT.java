package io.brook.tests.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.s3.S3SegmentStore;
import io.brook.tests.TestClients;
import io.brook.tests.cluster.ClusterHarness;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * The leader of a tiered partition is killed (SIGKILL) in the middle of uploading a segment, on a
 * cluster of three {@code brook server} processes whose store is a real S3 server (s3proxy in the
 * test JVM). The S3 server holds the first segment log upload until the leader is dead, then fails
 * it, as an upload cut off by the crash. The new leader cleans up the half-copied segment and
 * copies on: no segment is lost or uploaded twice, every record reads back from offset 0 exactly
 * once, and the bucket holds exactly the objects the manifest names.
 */
@Timeout(300)
class TieredLeaderKillIT {
  private static final String TOPIC = "tiered-kill";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static final int VALUE_BYTES = 4096;
  private static final int RECORDS = 1024;

  @TempDir Path tmp;

  /** Holds the {@code n}th segment log upload until released, then fails it. */
  static final class HeldUpload extends ForwardingBlobStore {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger untilHeld;

    HeldUpload(BlobStore delegate, int n) {
      super(delegate);
      this.untilHeld = new AtomicInteger(n);
    }

    @Override
    public PutObjectResponse putBlob(PutObjectRequest request, InputStream body) {
      if (request.key().endsWith(".log") && untilHeld.decrementAndGet() == 0) {
        entered.countDown();
        try {
          released.await(120, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("upload cut off: its sender was killed");
      }
      return super.putBlob(request, body);
    }
  }

  @Test
  void aLeaderKilledMidUploadLosesNothingDuplicatesNothingAndLeavesNoOrphans() throws Exception {
    HeldUpload[] hook = new HeldUpload[1];
    try (S3ProxyServer s3 =
        new S3ProxyServer(
            blobs -> {
              hook[0] = new HeldUpload(blobs, 1);
              return hook[0];
            })) {
      try (ClusterHarness cluster =
              ClusterHarness.start(tmp, 3, TieredClusters.s3BrokerSettings(s3));
          Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
          S3SegmentStore store = new S3SegmentStore(s3.settings(""))) {
        TieredClusters.createReplicated(admin, TOPIC, TieredClusters.topicSettings());
        int leader = TieredClusters.describe(admin, TOPIC).leader().id();

        // Two segments' worth: the first one rolls and its copy starts; its log upload is held.
        produce(cluster.bootstrapServers(), 0, RECORDS / 2);
        assertThat(hook[0].entered.await(60, TimeUnit.SECONDS)).isTrue();
        cluster.node(leader).kill();
        hook[0].released.countDown();

        TieredClusters.awaitLeaderOtherThan(admin, TOPIC, leader);
        produce(cluster.bootstrapServers(), RECORDS / 2, RECORDS / 2);
        TieredClusters.awaitTieredPast(admin, TP, RECORDS / 2, Duration.ofSeconds(120));

        List<ConsumerRecord<byte[], byte[]>> read =
            TestClients.readAll(cluster.bootstrapServers(), TOPIC, 1);
        assertThat(read).hasSize(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
          assertThat(read.get(i).offset()).isEqualTo(i);
          assertThat(new String(read.get(i).key())).isEqualTo(Integer.toString(i));
        }
        TopicIdPartition tp = RemoteStoreChecks.withTopicId(admin, TP);
        RemoteStoreChecks.storeHoldsContiguousSegmentsFromZero(store, tp, "");
      }
    }
  }

  private static void produce(String bootstrap, int from, int count) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(bootstrap)) {
      byte[] value = new byte[VALUE_BYTES];
      for (int i = from; i < from + count; i++) {
        producer.send(new ProducerRecord<>(TOPIC, 0, Integer.toString(i).getBytes(), value));
      }
      producer.flush();
    }
  }
}
