package io.brook.tests.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.storage.remote.RemoteLogManifest;
import io.brook.storage.remote.RemoteSegmentStore;
import io.brook.storage.s3.S3SegmentStore;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import io.brook.tests.admin.PrometheusScrape;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The life of tiered data beyond copy and read, on one broker whose remote store is a real S3
 * server (s3proxy): DeleteRecords moving the remote log start and deleting the remote segments
 * below it; turning remote storage off; a topic deleted and created again under the same name; the
 * store going away for a while.
 */
@Timeout(300)
class TieredLifecycleIT {
  private static final int RECORDS = 1024;
  private static final int VALUE_BYTES = 4096;
  private static final String KEY_PREFIX = "lifecycle/";

  @TempDir static Path tmp;
  private static S3ProxyServer s3;
  private static EmbeddedBrook brook;
  private static RemoteSegmentStore store;
  private static Admin admin;

  @BeforeAll
  static void start() throws Exception {
    s3 = new S3ProxyServer();
    Map<String, String> settings = s3.settings(KEY_PREFIX);
    EmbeddedBrook.Builder builder =
        TieredStorageIT.tieredBroker(tmp)
            .config("remote.log.storage.manager.class.name", S3SegmentStore.class.getName())
            .config("brook.admin.listener", "http://127.0.0.1:0");
    settings.forEach((k, v) -> builder.config("rsm.config." + k, v));
    brook = builder.start();
    store = new S3SegmentStore(settings);
    admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()));
  }

  @AfterAll
  static void stop() throws Exception {
    admin.close();
    store.close();
    brook.close();
    s3.close();
  }

  /**
   * DeleteRecords at an offset in remote data, below the local log start: the answer's low
   * watermark and ListOffsets earliest are that offset; a consumer at offset 0 gets
   * OFFSET_OUT_OF_RANGE (or, with auto.offset.reset=earliest, starts there); the remote segments
   * wholly below it are deleted, and the store keeps exactly what the manifest names.
   */
  @Test
  void deleteRecordsBelowTheLocalStartMovesTheRemoteLogStart() throws Exception {
    TopicPartition tp = tieredTopicWithRemoteData("delete-records");
    RemoteLogManifest before = manifest(tp);
    long target = before.readable().get(0).nextOffset() + 10;
    assertThat(target).isLessThan(offset(tp, OffsetSpec.earliestLocal()));

    long low =
        admin
            .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(target)))
            .lowWatermarks()
            .get(tp)
            .get()
            .lowWatermark();
    assertThat(low).isEqualTo(target);
    assertThat(offset(tp, OffsetSpec.earliest())).isEqualTo(target);

    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(brook.bootstrapServers(), "auto.offset.reset", "none")) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, 0);
      assertThatThrownBy(
              () -> {
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (System.nanoTime() < deadline) {
                  consumer.poll(Duration.ofMillis(200));
                }
              })
          .isInstanceOf(OffsetOutOfRangeException.class);
    }
    List<ConsumerRecord<byte[], byte[]>> read =
        TestClients.readAll(brook.bootstrapServers(), tp.topic(), 1);
    assertThat(read).hasSize((int) (RECORDS - target));
    assertThat(read.get(0).offset()).isEqualTo(target);

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> manifest(tp).segments().stream().allMatch(s -> s.endOffset() >= target));
    RemoteLogManifest after =
        RemoteStoreChecks.storeHoldsExactlyTheManifest(store, withId(tp), KEY_PREFIX);
    assertThat(after.logStartOffset()).isEqualTo(target);
    assertThat(after.segments()).doesNotContain(before.readable().get(0));
  }

  /**
   * As Kafka 3.9+: {@code remote.storage.enable=false} alone is refused (INVALID_CONFIG, Kafka's
   * message); with {@code remote.log.delete.on.disable=true} it is accepted and the leader deletes
   * every remote object of the partition; the log then starts at its local start.
   */
  @Test
  void turningRemoteStorageOffNeedsDeleteOnDisableAndDeletesTheRemoteData() throws Exception {
    TopicPartition tp = tieredTopicWithRemoteData("disable");
    TopicIdPartition id = withId(tp);
    assertThat(store.listObjects(id)).isNotEmpty();
    ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, tp.topic());
    AlterConfigOp off =
        new AlterConfigOp(
            new ConfigEntry("remote.storage.enable", "false"), AlterConfigOp.OpType.SET);
    assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(topic, List.of(off))).all().get())
        .cause()
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining(
            "It is invalid to disable remote storage without deleting remote data")
        .hasMessageContaining("remote.log.delete.on.disable=true");

    AlterConfigOp deleteOnDisable =
        new AlterConfigOp(
            new ConfigEntry("remote.log.delete.on.disable", "true"), AlterConfigOp.OpType.SET);
    admin.incrementalAlterConfigs(Map.of(topic, List.of(off, deleteOnDisable))).all().get();

    await().atMost(Duration.ofSeconds(60)).until(() -> store.listObjects(id).isEmpty());
    long localStart = offset(tp, OffsetSpec.earliestLocal());
    assertThat(offset(tp, OffsetSpec.earliest())).isEqualTo(localStart).isPositive();
    assertThat(TestClients.readAll(brook.bootstrapServers(), tp.topic(), 1))
        .hasSize((int) (RECORDS - localStart));
  }

  /**
   * Remote data is kept by topic id: a tiered topic deleted and at once created again under the
   * same name starts empty, whatever of its predecessor's remote data is still being deleted, and
   * the predecessor's data goes.
   */
  @Test
  void aTopicCreatedAgainUnderTheSameNameStartsEmpty() throws Exception {
    TopicPartition tp = tieredTopicWithRemoteData("recreated");
    TopicIdPartition old = withId(tp);
    admin.deleteTopics(List.of(tp.topic())).all().get();
    TestClients.createTopic(brook.bootstrapServers(), tp.topic(), 1, tieredConfigs());
    TopicIdPartition recreated = withId(tp);
    assertThat(recreated.topicId()).isNotEqualTo(old.topicId());
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>(tp.topic(), 0, null, ("new-" + i).getBytes()));
      }
      producer.flush();
    }

    assertThat(offset(tp, OffsetSpec.earliest())).isZero();
    assertThat(offset(tp, OffsetSpec.latestTiered())).isEqualTo(-1);
    List<ConsumerRecord<byte[], byte[]>> read =
        TestClients.readAll(brook.bootstrapServers(), tp.topic(), 1);
    assertThat(read).extracting(r -> new String(r.value())).startsWith("new-0").hasSize(10);
    await().atMost(Duration.ofSeconds(60)).until(() -> store.listObjects(old).isEmpty());
  }

  /**
   * The store goes away for a while ({@code -Dbrook.tiered.outage.seconds}, 15 by default, 60 for a
   * full minute): producing and reading local data go on, copies fail (counted in
   * RemoteCopyErrorsPerSec) and no uncopied segment leaves the local disk; once the store is back
   * the copies resume, every record reads back from offset 0 exactly once, and the store holds
   * exactly what the manifest names (a copy that failed midway left nothing behind).
   */
  @Test
  void aStoreOutageStopsNothingButTheCopiesAndLosesNothing() throws Exception {
    String topic = "outage";
    TestClients.createTopic(brook.bootstrapServers(), topic, 1, tieredConfigs());
    TopicPartition tp = new TopicPartition(topic, 0);
    produce(topic, 0, RECORDS / 2);
    await().atMost(Duration.ofSeconds(60)).until(() -> offset(tp, OffsetSpec.latestTiered()) >= 0);
    long failedBefore = failedCopies(topic);

    long outageMs = Long.getLong("brook.tiered.outage.seconds", 15) * 1000;
    s3.stop();
    long tieredAtOutage;
    try {
      tieredAtOutage = offset(tp, OffsetSpec.latestTiered());
      produce(topic, RECORDS / 2, RECORDS / 2);
      // Local data stays readable, and nothing not yet copied is deleted locally.
      long localStart = offset(tp, OffsetSpec.earliestLocal());
      assertThat(localStart).isLessThanOrEqualTo(tieredAtOutage + 1);
      try (KafkaConsumer<byte[], byte[]> consumer =
          TestClients.consumer(brook.bootstrapServers())) {
        consumer.assign(List.of(tp));
        consumer.seek(tp, localStart);
        long read = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (consumer.position(tp) < RECORDS && System.nanoTime() < deadline) {
          read += consumer.poll(Duration.ofMillis(200)).count();
        }
        assertThat(read).isEqualTo(RECORDS - localStart);
      }
      // The outage lasts its time; by then copies have been tried and have failed.
      await()
          .pollDelay(Duration.ofMillis(outageMs))
          .atMost(Duration.ofMillis(outageMs + 60_000))
          .until(() -> failedCopies(topic) > failedBefore);
      assertThat(offset(tp, OffsetSpec.earliestLocal())).isEqualTo(localStart);
    } finally {
      s3.start();
    }

    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> offset(tp, OffsetSpec.earliestLocal()) > RECORDS / 2);
    assertThat(offset(tp, OffsetSpec.latestTiered())).isGreaterThan(tieredAtOutage);
    List<ConsumerRecord<byte[], byte[]>> read =
        TestClients.readAll(brook.bootstrapServers(), topic, 1);
    assertThat(read).hasSize(RECORDS);
    for (int i = 0; i < RECORDS; i++) {
      assertThat(read.get(i).offset()).isEqualTo(i);
      assertThat(new String(read.get(i).key())).isEqualTo(Integer.toString(i));
    }
    RemoteStoreChecks.storeHoldsExactlyTheManifest(store, withId(tp), KEY_PREFIX);
  }

  /**
   * The remote storage metrics exist per topic on the Prometheus endpoint (as Kafka's {@code
   * topic}-tagged BrokerTopicMetrics) for a tiered topic, not for one that is not tiered, and a
   * deleted topic's metrics go with it.
   */
  @Test
  void remoteMetricsArePerTopicAndGoWithTheTopic() throws Exception {
    TopicPartition tiered = tieredTopicWithRemoteData("metered");
    String plain = "unmetered";
    TestClients.createTopic(brook.bootstrapServers(), plain, 1, Map.of());
    produce(plain, 0, 10);
    assertThat(TestClients.readAll(brook.bootstrapServers(), plain, 1)).hasSize(10);
    // Every rolled segment copied: no copy of the topic is under way when it is deleted below.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> sample("remotecopylagsegments", tiered.topic()) == 0.0);

    Map<String, Double> samples = PrometheusScrape.scrape(brook.server().adminPort());
    assertThat(samples.get(key("remotecopybytes_total", tiered.topic()))).isPositive();
    assertThat(samples.get(key("remotecopyrequests_total", tiered.topic()))).isPositive();
    assertThat(samples.get(key("remotelogsizebytes", tiered.topic()))).isPositive();
    assertThat(samples.get(key("remotecopylagbytes", tiered.topic()))).isZero();
    assertThat(samples.get("kafka_server_brokertopicmetrics_remotecopybytes_total"))
        .isGreaterThanOrEqualTo(samples.get(key("remotecopybytes_total", tiered.topic())));
    assertThat(samples.get(key("bytesin_total", plain))).isPositive();
    assertThat(samples.keySet())
        .filteredOn(k -> k.startsWith("kafka_server_brokertopicmetrics_remote"))
        .noneMatch(k -> k.contains("topic=\"" + plain + "\""));

    admin.deleteTopics(List.of(tiered.topic(), plain)).all().get();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                PrometheusScrape.scrape(brook.server().adminPort()).keySet().stream()
                    .noneMatch(
                        k ->
                            k.contains("topic=\"" + tiered.topic() + "\"")
                                || k.contains("topic=\"" + plain + "\"")));
  }

  /** A BrokerTopicMetrics sample of {@code topic}, as the Prometheus endpoint names it. */
  private static String key(String metric, String topic) {
    return "kafka_server_brokertopicmetrics_" + metric + "{topic=\"" + topic + "\"}";
  }

  private static double sample(String metric, String topic) throws Exception {
    Double value = PrometheusScrape.scrape(brook.server().adminPort()).get(key(metric, topic));
    return value == null ? -1 : value;
  }

  private static long failedCopies(String topic) {
    MetricName name =
        BrokerMetrics.name(
            "kafka.server",
            "BrokerTopicMetrics",
            "RemoteCopyErrorsPerSec",
            "Count",
            "topic",
            topic);
    KafkaMetric metric = brook.server().metrics().all().get(name);
    return metric == null ? 0 : ((Number) metric.metricValue()).longValue();
  }

  private static void produce(String topic, int from, int count) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      byte[] value = new byte[VALUE_BYTES];
      for (int i = from; i < from + count; i++) {
        producer.send(new ProducerRecord<>(topic, 0, Integer.toString(i).getBytes(), value));
      }
      producer.flush();
    }
  }

  private static Map<String, String> tieredConfigs() {
    return Map.of(
        "remote.storage.enable", "true",
        "local.retention.ms", "1000",
        "retention.ms", "-1",
        "segment.bytes", "1048576");
  }

  /**
   * A topic with 1 MiB segments and {@code local.retention.ms=1000} given 4 MiB: returns once most
   * of it is remote and gone from the local disk.
   */
  private static TopicPartition tieredTopicWithRemoteData(String topic) throws Exception {
    TestClients.createTopic(brook.bootstrapServers(), topic, 1, tieredConfigs());
    TopicPartition tp = new TopicPartition(topic, 0);
    produce(topic, 0, RECORDS);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> offset(tp, OffsetSpec.earliestLocal()) > RECORDS / 2);
    return tp;
  }

  private static long offset(TopicPartition tp, OffsetSpec spec) throws Exception {
    return admin.listOffsets(Map.of(tp, spec)).all().get().get(tp).offset();
  }

  private static RemoteLogManifest manifest(TopicPartition tp) throws Exception {
    return RemoteLogManifest.decode(store.readManifest(withId(tp)).orElseThrow());
  }

  private static TopicIdPartition withId(TopicPartition tp) throws Exception {
    return RemoteStoreChecks.withTopicId(admin, tp);
  }
}
