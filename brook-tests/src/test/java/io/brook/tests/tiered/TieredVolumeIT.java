package io.brook.tests.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.storage.s3.S3SegmentStore;
import io.brook.tests.TestClients;
import io.brook.tests.cluster.ClusterHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Volume on three {@code brook server} processes (slow-its profile): about 300 MiB into a tiered
 * topic on three replicas with 1 MiB segments and {@code local.retention.bytes} of 4 MiB, its store
 * a real S3 server. The leader is SIGKILLed once while it uploads a segment (the S3 server holds
 * that upload until the leader is dead, then fails it), then started again. Afterwards a consumer
 * from offset 0 reads every record back with the checksum of its value, the bucket holds exactly
 * the segments the manifest names, contiguous from offset 0, and each node keeps no more than the
 * local retention plus the active segment and one being copied on its disk.
 */
@Timeout(1200)
class TieredVolumeIT {
  private static final String TOPIC = "tiered-volume";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static final int VALUE_BYTES = 16 * 1024;
  private static final int RECORDS = 300 * 1024 * 1024 / VALUE_BYTES;
  private static final long LOCAL_RETENTION_BYTES = 4L * TieredClusters.SEGMENT_BYTES;

  /** Local log bytes a node may keep once copies caught up: retention, active and rolling one. */
  private static final long LOCAL_BOUND = LOCAL_RETENTION_BYTES + 2L * TieredClusters.SEGMENT_BYTES;

  /** The segment upload the S3 server holds while the leader is killed: about 40 MiB in. */
  private static final int HELD_UPLOAD = 40;

  private static final long SEED = 300;

  @TempDir Path tmp;

  @Test
  void threeHundredMebibytesWithTheLeaderKilledMidCopyReadBackWhole() throws Exception {
    TieredLeaderKillIT.HeldUpload[] hook = new TieredLeaderKillIT.HeldUpload[1];
    try (S3ProxyServer s3 =
        new S3ProxyServer(
            blobs -> {
              hook[0] = new TieredLeaderKillIT.HeldUpload(blobs, HELD_UPLOAD);
              return hook[0];
            })) {
      try (ClusterHarness cluster =
              ClusterHarness.start(tmp, 3, TieredClusters.s3BrokerSettings(s3));
          Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
          S3SegmentStore store = new S3SegmentStore(s3.settings(""))) {
        Map<String, String> topic = new HashMap<>(TieredClusters.topicSettings());
        topic.remove("local.retention.ms");
        topic.put("local.retention.bytes", Long.toString(LOCAL_RETENTION_BYTES));
        TieredClusters.createReplicated(admin, TOPIC, topic);

        long started = System.nanoTime();
        CompletableFuture<Void> produced =
            CompletableFuture.runAsync(() -> produce(cluster.bootstrapServers()));
        assertThat(hook[0].entered.await(600, TimeUnit.SECONDS)).isTrue();
        int leader = TieredClusters.describe(admin, TOPIC).leader().id();
        cluster.node(leader).kill();
        hook[0].released.countDown();
        TieredClusters.awaitLeaderOtherThan(admin, TOPIC, leader);
        produced.get(600, TimeUnit.SECONDS);
        cluster.node(leader).restart();
        System.out.printf(
            "TieredVolumeIT: %d records of %d bytes produced in %d s%n",
            RECORDS, VALUE_BYTES, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));

        // Everything rolled is copied (the active segment holds the last records).
        TieredClusters.awaitTieredPast(
            admin,
            TP,
            RECORDS - 2L * TieredClusters.SEGMENT_BYTES / VALUE_BYTES,
            Duration.ofSeconds(300));
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> TieredClusters.describe(admin, TOPIC).isr().size() == 3);
        for (ClusterHarness.Node node : cluster.brokers()) {
          Path dir = cluster.dir().resolve("data-" + node.id()).resolve(TOPIC + "-0");
          await().atMost(Duration.ofSeconds(120)).until(() -> localLogBytes(dir) <= LOCAL_BOUND);
        }

        checkEveryRecord(cluster.bootstrapServers());
        TopicIdPartition tp = RemoteStoreChecks.withTopicId(admin, TP);
        assertThat(RemoteStoreChecks.storeHoldsContiguousSegmentsFromZero(store, tp, ""))
            .hasSizeGreaterThan(RECORDS * VALUE_BYTES / TieredClusters.SEGMENT_BYTES / 2);
        System.out.printf(
            "TieredVolumeIT: done in %d s%n",
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
      }
    }
  }

  /** The value of record {@code i}: random bytes from a seed of its own. */
  private static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    new SplittableRandom(SEED + i).nextBytes(v);
    return v;
  }

  private static long checksum(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return crc.getValue();
  }

  /** Every record, by one idempotent producer that rides over the leader's death. */
  private static void produce(String bootstrap) {
    AtomicReference<Exception> failed = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(
            bootstrap, "acks", "all", "enable.idempotence", "true", "linger.ms", "5")) {
      for (int i = 0; i < RECORDS && failed.get() == null; i++) {
        producer.send(
            new ProducerRecord<>(TOPIC, 0, Integer.toString(i).getBytes(), value(i)),
            (metadata, e) -> {
              if (e != null) {
                failed.compareAndSet(null, e);
              }
            });
      }
      producer.flush();
    }
    assertThat(failed.get()).as("a send failed").isNull();
  }

  /** Reads from offset 0 to the end, checking each record's offset, key and value checksum. */
  private static void checkEveryRecord(String bootstrap) {
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(bootstrap, "max.partition.fetch.bytes", "4194304")) {
      consumer.assign(List.of(TP));
      consumer.seek(TP, 0);
      long next = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
      while (next < RECORDS && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          int i = (int) next;
          if (r.offset() != next
              || !new String(r.key()).equals(Integer.toString(i))
              || checksum(r.value()) != checksum(value(i))) {
            assertThat(r.offset()).isEqualTo(next);
            assertThat(new String(r.key())).isEqualTo(Integer.toString(i));
            assertThat(r.value()).as("value of offset %d", next).isEqualTo(value(i));
          }
          next++;
        }
      }
      assertThat(next).as("records read back").isEqualTo(RECORDS);
    }
  }

  /** Bytes of the segment logs in a replica's partition directory. */
  private static long localLogBytes(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      long sum = 0;
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.getFileName().toString().endsWith(".log")) {
          try {
            sum += Files.size(f);
          } catch (NoSuchFileException e) {
            // deleted by local retention since the listing
          }
        }
      }
      return sum;
    }
  }
}
