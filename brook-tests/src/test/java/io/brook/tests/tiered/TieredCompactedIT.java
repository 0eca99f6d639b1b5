package io.brook.tests.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.storage.remote.LocalFsSegmentStore;
import io.brook.storage.remote.RemoteSegmentStore;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiered compacted topic end to end on one broker with real kafka-clients (a Brook extension:
 * Kafka refuses {@code remote.storage.enable} on compacted topics). Every key is written in many
 * versions and some keys are then deleted; with {@code local.retention.ms} tiny the cleaned
 * segments go remote and leave the disk, and the remote copy is compacted in turn. A consumer from
 * offset 0 then reads, from remote storage, exactly the newest value of each live key and nothing
 * of a deleted key once {@code delete.retention.ms} has passed, and the store holds exactly the
 * objects its manifest names. The local-filesystem store keeps it quick; the remote compaction only
 * uses the store interface, which {@link TieredStorageIT} runs against S3 too. {@code
 * -Dbrook.tieredCompacted.keys=10000 -Dbrook.tieredCompacted.versions=50} runs the large case.
 */
@Timeout(300)
class TieredCompactedIT {
  private static final String TOPIC = "tiered-compacted";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static final int VALUE_BYTES = 100;
  private static final int DELETE_EVERY = 10;

  @TempDir Path tmp;

  @Test
  void localFilesystemStore() throws Exception {
    int keys = Integer.getInteger("brook.tieredCompacted.keys", 2_000);
    int versions = Integer.getInteger("brook.tieredCompacted.versions", 20);
    Path storeDir = tmp.resolve("store");
    try (EmbeddedBrook brook = broker(tmp).config("rsm.config.dir", storeDir.toString()).start();
        RemoteSegmentStore store = new LocalFsSegmentStore(storeDir)) {
      scenario(brook, store, "", keys, versions);
    }
  }

  private static EmbeddedBrook.Builder broker(Path tmp) {
    return TieredStorageIT.tieredBroker(tmp)
        .config("log.cleaner.backoff.ms", "100")
        .config("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
  }

  private static void scenario(
      EmbeddedBrook brook, RemoteSegmentStore store, String keyPrefix, int keys, int versions)
      throws Exception {
    TestClients.createTopic(
        brook.bootstrapServers(),
        TOPIC,
        1,
        Map.of(
            "cleanup.policy", "compact",
            "remote.storage.enable", "true",
            "local.retention.ms", "100",
            "segment.bytes", "1048576",
            "min.cleanable.dirty.ratio", "0.01",
            "delete.retention.ms", "3000"));
    long lastMainOffset = produce(brook.bootstrapServers(), keys, versions);

    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      TopicIdPartition idTp = RemoteStoreChecks.withTopicId(admin, TP);
      await()
          .atMost(Duration.ofSeconds(180))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                // Every version and tombstone went remote (the local log starts past them) ...
                assertThat(offset(admin, OffsetSpec.earliestLocal())).isGreaterThan(lastMainOffset);
                // ... where only the newest value of each live key is left, deleted keys gone.
                checkNewestValuesOnly(brook.bootstrapServers(), keys, versions);
                RemoteStoreChecks.storeHoldsExactlyTheManifest(store, idTp, keyPrefix, 1);
              });
      assertThat(offset(admin, OffsetSpec.earliest())).isZero();
    }
  }

  private static String key(int k) {
    return String.format("key-%05d", k);
  }

  private static byte[] value(int k, int version) {
    byte[] v = new byte[VALUE_BYTES];
    byte[] text = (key(k) + "-v" + version).getBytes(StandardCharsets.UTF_8);
    System.arraycopy(text, 0, v, 0, text.length);
    return v;
  }

  private static boolean deleted(int k) {
    return k % DELETE_EVERY == 0;
  }

  /**
   * Every key in {@code versions} versions, then a tombstone for every tenth key, then filler
   * records under other keys so that the segment with the tombstones rolls; returns the offset of
   * the last tombstone.
   */
  private static long produce(String bootstrap, int keys, int versions) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(bootstrap, "linger.ms", "5")) {
      for (int version = 0; version < versions; version++) {
        for (int k = 0; k < keys; k++) {
          producer.send(new ProducerRecord<>(TOPIC, 0, key(k).getBytes(), value(k, version)));
        }
      }
      RecordMetadata last = null;
      for (int k = 0; k < keys; k += DELETE_EVERY) {
        last = producer.send(new ProducerRecord<>(TOPIC, 0, key(k).getBytes(), null)).get();
      }
      byte[] filler = new byte[1024];
      for (int i = 0; i < 1_100; i++) {
        producer.send(new ProducerRecord<>(TOPIC, 0, ("filler-" + i).getBytes(), filler));
      }
      producer.flush();
      return last.offset();
    }
  }

  private static long offset(Admin admin, OffsetSpec spec) throws Exception {
    return admin.listOffsets(Map.of(TP, spec)).all().get().get(TP).offset();
  }

  /** From offset 0: one record per live key, with its newest value; none of a deleted key. */
  private static void checkNewestValuesOnly(String bootstrap, int keys, int versions) {
    Map<String, List<byte[]>> byKey = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : TestClients.readAll(bootstrap, TOPIC, 1)) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      if (key.startsWith("key-")) {
        byKey.computeIfAbsent(key, x -> new ArrayList<>()).add(r.value());
      }
    }
    for (int k = 0; k < keys; k++) {
      List<byte[]> seen = byKey.getOrDefault(key(k), List.of());
      if (deleted(k)) {
        assertThat(seen).as("records of deleted %s", key(k)).isEmpty();
      } else {
        assertThat(seen).as("records of %s", key(k)).hasSize(1);
        assertThat(seen.get(0)).as("value of %s", key(k)).isEqualTo(value(k, versions - 1));
      }
    }
  }
}
