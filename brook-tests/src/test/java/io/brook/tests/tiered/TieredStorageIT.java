package io.brook.tests.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.storage.remote.LocalFsSegmentStore;
import io.brook.storage.remote.RemoteFileType;
import io.brook.storage.remote.RemoteSegmentStore;
import io.brook.storage.s3.S3SegmentStore;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import io.brook.tests.admin.PrometheusScrape;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Tiered storage end to end on one broker with real kafka-clients: a topic with 1 MiB segments and
 * {@code local.retention.ms=1000} gets 4 MiB; its rolled segments are copied to the remote store
 * and deleted locally; a consumer reads every record from offset 0 byte for byte (most of them from
 * remote storage); ListOffsets by timestamp, earliest, earliest-local (-4) and latest-tiered (-5)
 * answer across both tiers; after a restart all of it still holds; and the store holds exactly the
 * objects of the segments its manifest names. Once with the local-filesystem store, once with the
 * S3 store against a real S3 server (s3proxy in this JVM, in memory, on an ephemeral port). A
 * second replay of the same remote data is served from the broker's chunk cache.
 */
@Timeout(180)
class TieredStorageIT {
  private static final String TOPIC = "tiered";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static final int RECORDS = 1024;
  private static final int VALUE_BYTES = 4096;
  private static final long SEED = 405;

  @TempDir Path tmp;

  @Test
  void localFilesystemStore() throws Exception {
    Path storeDir = tmp.resolve("store");
    try (EmbeddedBrook brook =
            tieredBroker(tmp).config("rsm.config.dir", storeDir.toString()).start();
        RemoteSegmentStore store = new LocalFsSegmentStore(storeDir)) {
      scenario(brook, store, "");
    }
  }

  @Test
  void s3StoreOnARealS3Server() throws Exception {
    TransientNio2BlobStore blobs = new TransientNio2BlobStore();
    blobs.createContainer("brook");
    S3Proxy s3 =
        S3Proxy.builder()
            .blobStore(blobs)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "access", "secret")
            .build();
    s3.start();
    try {
      while (!"STARTED".equals(s3.getState())) {
        Thread.onSpinWait();
      }
      Map<String, String> settings =
          Map.of(
              "s3.bucket", "brook",
              "s3.endpoint.override", "http://127.0.0.1:" + s3.getPort(),
              "s3.path.style.access", "true",
              "s3.access.key.id", "access",
              "s3.secret.access.key", "secret",
              "s3.key.prefix", "cluster-1/");
      EmbeddedBrook.Builder builder =
          tieredBroker(tmp)
              .config("remote.log.storage.manager.class.name", S3SegmentStore.class.getName());
      settings.forEach((k, v) -> builder.config("rsm.config." + k, v));
      try (EmbeddedBrook brook = builder.start();
          RemoteSegmentStore store = new S3SegmentStore(settings)) {
        scenario(brook, store, "cluster-1/");
      }
    } finally {
      s3.stop();
    }
  }

  /** Counts the GETs of remote segments' log files (ranged: remote reads). */
  static final class CountedLogReads extends ForwardingBlobStore {
    final AtomicInteger logGets = new AtomicInteger();

    CountedLogReads(BlobStore delegate) {
      super(delegate);
    }

    @Override
    public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
      if (request.key().endsWith(RemoteFileType.LOG.suffix())) {
        logGets.incrementAndGet();
      }
      return super.getBlob(request);
    }
  }

  /**
   * Two consumers replay the same remote data one after the other, against a real S3 server: the
   * first one's reads fetch each remote segment's log once (a 1 MiB segment is one chunk of the
   * chunk cache), the second one's fetch nothing from the store, and both read every record byte
   * for byte.
   */
  @Test
  void aSecondReplayOfRemoteDataIsServedFromTheChunkCache() throws Exception {
    CountedLogReads[] counted = new CountedLogReads[1];
    try (S3ProxyServer s3 =
        new S3ProxyServer(
            blobs -> {
              counted[0] = new CountedLogReads(blobs);
              return counted[0];
            })) {
      EmbeddedBrook.Builder builder =
          tieredBroker(tmp)
              .config("remote.log.storage.manager.class.name", S3SegmentStore.class.getName())
              .config("brook.admin.listener", "http://127.0.0.1:0");
      s3.settings("").forEach((k, v) -> builder.config("rsm.config." + k, v));
      try (EmbeddedBrook brook = builder.start();
          RemoteSegmentStore store = new S3SegmentStore(s3.settings(""));
          Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
        TestClients.createTopic(
            brook.bootstrapServers(),
            TOPIC,
            1,
            Map.of(
                "remote.storage.enable", "true",
                "local.retention.ms", "1000",
                "retention.ms", "-1",
                "segment.bytes", "1048576"));
        produce(brook.bootstrapServers(), System.currentTimeMillis() - 3_600_000L);

        // Every rolled segment is copied and leaves the disk (only the active one stays), so
        // nothing moves between the tiers during the two replays.
        Path partitionDir = tmp.resolve("data").resolve(TOPIC + "-0");
        await().atMost(Duration.ofSeconds(60)).until(() -> logFiles(partitionDir) == 1);
        long remoteSegments =
            store.listObjects(RemoteStoreChecks.withTopicId(admin, TP)).stream()
                .filter(key -> key.endsWith(RemoteFileType.LOG.suffix()))
                .count();
        assertThat(remoteSegments).isGreaterThanOrEqualTo(3);

        int before = counted[0].logGets.get();
        checkEveryRecord(brook.bootstrapServers());
        int firstReplay = counted[0].logGets.get() - before;
        checkEveryRecord(brook.bootstrapServers());
        int secondReplay = counted[0].logGets.get() - before - firstReplay;

        assertThat(firstReplay).as("GETs of the first replay").isEqualTo((int) remoteSegments);
        assertThat(secondReplay).as("GETs of the second replay").isZero();

        // The chunk cache's gauges say the same: one chunk fetched per segment, all of it kept.
        Map<String, Double> samples = PrometheusScrape.scrape(brook.server().adminPort());
        String prefix = "kafka_server_brokertopicmetrics_remotechunkcache";
        assertThat(samples.get(prefix + "misses")).isEqualTo((double) remoteSegments);
        assertThat(samples.get(prefix + "hits")).isPositive();
        assertThat(samples.get(prefix + "sizebytes"))
            .isPositive()
            .isEqualTo(samples.get(prefix + "fetchedbytes"));
      }
    }
  }

  private static long logFiles(Path partitionDir) throws Exception {
    try (Stream<Path> files = Files.list(partitionDir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".log")).count();
    }
  }

  /**
   * Transactions, half of them aborted, most of them in remote data: a read_committed consumer from
   * offset 0 sees exactly the committed records, in order (the aborted transactions come from the
   * remote transaction indexes).
   */
  @Test
  void readCommittedSkipsAbortedTransactionsInRemoteData() throws Exception {
    String topic = "tiered-txn";
    TopicPartition tp = new TopicPartition(topic, 0);
    try (EmbeddedBrook brook =
        tieredBroker(tmp).config("rsm.config.dir", tmp.resolve("store").toString()).start()) {
      TestClients.createTopic(
          brook.bootstrapServers(),
          topic,
          1,
          Map.of(
              "remote.storage.enable", "true",
              "local.retention.ms", "1000",
              "retention.ms", "-1",
              "segment.bytes", "1048576"));
      List<String> committed = new ArrayList<>();
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(brook.bootstrapServers(), "transactional.id", "tiered-txn")) {
        producer.initTransactions();
        byte[] value = new byte[VALUE_BYTES];
        for (int txn = 0; txn < 80; txn++) {
          producer.beginTransaction();
          for (int i = 0; i < 16; i++) {
            String key = txn + "-" + i;
            producer.send(new ProducerRecord<>(topic, 0, key.getBytes(), value));
            if (txn % 2 == 0) {
              committed.add(key);
            }
          }
          if (txn % 2 == 0) {
            producer.commitTransaction();
          } else {
            producer.abortTransaction();
          }
        }
      }
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    admin
                            .listOffsets(Map.of(tp, OffsetSpec.earliestLocal()))
                            .all()
                            .get()
                            .get(tp)
                            .offset()
                        > 256);
      }
      List<String> read = new ArrayList<>();
      try (KafkaConsumer<byte[], byte[]> consumer =
          TestClients.consumer(brook.bootstrapServers(), "isolation.level", "read_committed")) {
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long end = consumer.endOffsets(List.of(tp)).get(tp);
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (consumer.position(tp) < end && System.nanoTime() < deadline) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            read.add(new String(r.key()));
          }
        }
      }
      assertThat(read).containsExactlyElementsOf(committed);
    }
  }

  /** Tiering on, checked every 100 ms; data (and the index cache next to it) under {@code tmp}. */
  static EmbeddedBrook.Builder tieredBroker(Path tmp) {
    return EmbeddedBrook.builder()
        .dataDir(tmp.resolve("data"))
        .config("remote.log.storage.system.enable", "true")
        .config("remote.log.manager.task.interval.ms", "100");
  }

  static void scenario(EmbeddedBrook brook, RemoteSegmentStore store, String keyPrefix)
      throws Exception {
    TestClients.createTopic(
        brook.bootstrapServers(),
        TOPIC,
        1,
        Map.of(
            "remote.storage.enable", "true",
            "local.retention.ms", "1000",
            "retention.ms", "-1",
            "segment.bytes", "1048576"));
    long base = System.currentTimeMillis() - 3_600_000L;
    produce(brook.bootstrapServers(), base);

    // The four full segments go remote and leave the disk: only the active one stays local. Until
    // then a copy may move the last tiered offset between two ListOffsets of the checks.
    Path partitionDir = brook.dataDir().resolve(TOPIC + "-0");
    await().atMost(Duration.ofSeconds(60)).until(() -> logFiles(partitionDir) == 1);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      checkOffsets(admin, base);
    }
    checkEveryRecord(brook.bootstrapServers());
    checkStoreMatchesManifest(brook, store, keyPrefix);

    brook.restart();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      checkOffsets(admin, base);
    }
    checkEveryRecord(brook.bootstrapServers());
    checkStoreMatchesManifest(brook, store, keyPrefix);
  }

  private static byte[] value(Random random) {
    byte[] v = new byte[VALUE_BYTES];
    random.nextBytes(v);
    return v;
  }

  private static void produce(String bootstrap, long base) throws Exception {
    Random random = new Random(SEED);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(bootstrap)) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(
            new ProducerRecord<>(
                TOPIC, 0, base + i, Integer.toString(i).getBytes(), value(random)));
      }
      producer.flush();
    }
  }

  private static long offset(Admin admin, OffsetSpec spec) throws Exception {
    return admin.listOffsets(Map.of(TP, spec)).all().get().get(TP).offset();
  }

  private static void checkOffsets(Admin admin, long base) throws Exception {
    long earliestLocal = offset(admin, OffsetSpec.earliestLocal());
    assertThat(offset(admin, OffsetSpec.earliest())).isZero();
    assertThat(earliestLocal).isGreaterThan(RECORDS / 2);
    // The last tiered offset is just below the local start: the copies left no gap.
    assertThat(offset(admin, OffsetSpec.latestTiered())).isEqualTo(earliestLocal - 1);
    // By time: a record deep in remote data, and one in local data.
    assertThat(offset(admin, OffsetSpec.forTimestamp(base + 10))).isEqualTo(10);
    assertThat(offset(admin, OffsetSpec.forTimestamp(base + RECORDS - 1))).isEqualTo(RECORDS - 1);
    assertThat(offset(admin, OffsetSpec.latest())).isEqualTo(RECORDS);
  }

  private static void checkEveryRecord(String bootstrap) {
    List<ConsumerRecord<byte[], byte[]>> records = TestClients.readAll(bootstrap, TOPIC, 1);
    assertThat(records).hasSize(RECORDS);
    Random random = new Random(SEED);
    for (int i = 0; i < RECORDS; i++) {
      ConsumerRecord<byte[], byte[]> r = records.get(i);
      assertThat(r.offset()).isEqualTo(i);
      assertThat(new String(r.key())).isEqualTo(Integer.toString(i));
      assertThat(r.value()).as("value of offset %d", i).isEqualTo(value(random));
    }
  }

  private static void checkStoreMatchesManifest(
      EmbeddedBrook brook, RemoteSegmentStore store, String keyPrefix) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      RemoteStoreChecks.storeHoldsExactlyTheManifest(
          store, RemoteStoreChecks.withTopicId(admin, TP), keyPrefix);
    }
  }
}
