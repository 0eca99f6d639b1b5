package io.brook.tests.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.ChildProcess;
import io.brook.tests.RawKafkaClient;
import io.brook.tests.TestClients;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Client quotas on one broker with kafka-clients and Kafka's own {@code kafka-configs}: a producer
 * and a consumer held to their byte rates (measured over 15 s of steady traffic once throttling
 * started, within 15%), a client flooding Metadata throttled by its request percentage and muted,
 * and a client without a quota unaffected. Each test uses client ids of its own: quotas set by one
 * never apply to another.
 */
@Timeout(180)
class ClientQuotaIT {
  /**
   * Two samples of 1 s: when a sample expires a saturating client may send what it held, so a rate
   * measured over a span of the test's length swings by up to one sample's worth. With Kafka's 11
   * samples that swing is 10 s of quota, more than the span itself; the quota maths is the same.
   */
  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config("quota.window.num", "2")
              .config("quota.window.size.seconds", "1"));

  private static final int VALUE_BYTES = 8 * 1024;
  private static final long MEASURE_MS = 15_000;

  @Test
  void aProducerIsHeldToItsByteRateWhileAnUnthrottledProducerKeepsGoing() throws Exception {
    // Given: 1 MiB/s for client-id "backfill"
    long quota = 1024 * 1024;
    setQuota(ClientQuotaEntity.CLIENT_ID, "backfill", "producer_byte_rate", quota);
    TestClients.createTopic(BROOK.bootstrapServers(), "backfill", 1);
    TestClients.createTopic(BROOK.bootstrapServers(), "free", 1);
    AtomicLong acked = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    try (KafkaProducer<byte[], byte[]> throttled =
            TestClients.producer(
                BROOK.bootstrapServers(),
                "client.id",
                "backfill",
                "linger.ms",
                "5",
                "acks",
                "1",
                // Little queued behind the quota: closing waits for it
                "buffer.memory",
                "1048576");
        KafkaProducer<byte[], byte[]> free =
            TestClients.producer(BROOK.bootstrapServers(), "client.id", "free", "acks", "1")) {
      Thread sender =
          new Thread(
              () -> {
                byte[] value = new byte[VALUE_BYTES];
                while (!stop.get()) {
                  throttled.send(
                      new ProducerRecord<>("backfill", value),
                      (m, e) -> {
                        if (e == null) {
                          acked.addAndGet(VALUE_BYTES);
                        }
                      });
                }
              },
              "backfill-sender");
      sender.start();
      try {
        // When: once throttling started, 15 s of steady traffic
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> metric(throttled.metrics(), "produce-throttle-time-max") > 0);
        long startBytes = acked.get();
        long startNanos = System.nanoTime();
        int freeRecords = 0;
        while (System.nanoTime() - startNanos < TimeUnit.MILLISECONDS.toNanos(MEASURE_MS)) {
          free.send(new ProducerRecord<>("free", new byte[VALUE_BYTES])).get();
          freeRecords++;
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double rate = (acked.get() - startBytes) / seconds;

        // Then
        assertThat(rate).isCloseTo(quota, within(quota * 0.15));
        assertThat(metric(throttled.metrics(), "produce-throttle-time-avg")).isGreaterThan(0);
        assertThat(metric(free.metrics(), "produce-throttle-time-max")).isZero();
        assertThat(freeRecords).isPositive();
      } finally {
        stop.set(true);
        sender.join();
      }
    }
  }

  @Test
  void aConsumerIsHeldToItsByteRate() throws Exception {
    // Given: 12 MiB to read, 512 KiB/s for client-id "slow-reader"
    long quota = 512 * 1024;
    String topic = "reads";
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1);
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(BROOK.bootstrapServers(), "client.id", "filler")) {
      for (int i = 0; i < 12 * 128; i++) {
        producer.send(new ProducerRecord<>(topic, new byte[VALUE_BYTES]));
      }
      producer.flush();
    }
    setQuota(ClientQuotaEntity.CLIENT_ID, "slow-reader", "consumer_byte_rate", quota);
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(
            BROOK.bootstrapServers(),
            "client.id",
            "slow-reader",
            // Small fetches: little is buffered ahead of what the test counts
            "fetch.max.bytes",
            "65536",
            "max.partition.fetch.bytes",
            "65536")) {
      consumer.assign(List.of(new TopicPartition(topic, 0)));
      consumer.seekToBeginning(consumer.assignment());

      // When: once throttling started, 15 s of steady reading
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(100));
                return metric(consumer.metrics(), "fetch-throttle-time-max") > 0;
              });
      long bytes = 0;
      long startNanos = System.nanoTime();
      while (System.nanoTime() - startNanos < TimeUnit.MILLISECONDS.toNanos(MEASURE_MS)) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          bytes += r.value().length;
        }
      }
      double rate = bytes / ((System.nanoTime() - startNanos) / 1e9);

      // Then
      assertThat(rate).isCloseTo(quota, within(quota * 0.15));
      assertThat(metric(consumer.metrics(), "fetch-throttle-time-avg")).isGreaterThan(0);
    }
  }

  @Test
  void aClientFloodingMetadataIsThrottledByItsRequestPercentageAndMuted() throws Exception {
    // Given: a tenth of a percent of one thread for client-id "flooder"
    setQuota(ClientQuotaEntity.CLIENT_ID, "flooder", "request_percentage", 0.1);
    String[] hostPort = BROOK.bootstrapServers().split(":");
    short version = 12;
    try (RawKafkaClient client =
        new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]), "flooder")) {
      // When: Metadata requests back to back until one is throttled
      int throttleMs = 0;
      for (int i = 0; i < 200_000 && throttleMs == 0; i++) {
        throttleMs = metadata(client, version).throttleTimeMs();
      }
      long startNanos = System.nanoTime();
      metadata(client, version);
      long nextAnsweredAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);

      // Then: throttled, and the connection was not read until the throttle time had passed
      assertThat(throttleMs).isPositive();
      assertThat(nextAnsweredAfterMs).isGreaterThanOrEqualTo(throttleMs / 2);
    }
  }

  @Test
  void kafkaConfigsAltersAndDescribesClientQuotas() throws Exception {
    // Given
    String configs = "org.apache.kafka.tools.ConfigCommand";
    String bootstrap = BROOK.bootstrapServers();

    // When
    ChildProcess.Result alterClient =
        tool(
            configs,
            "--bootstrap-server",
            bootstrap,
            "--alter",
            "--add-config",
            "producer_byte_rate=1048576,request_percentage=200",
            "--entity-type",
            "clients",
            "--entity-name",
            "reporting");
    ChildProcess.Result alterUser =
        tool(
            configs,
            "--bootstrap-server",
            bootstrap,
            "--alter",
            "--add-config",
            "consumer_byte_rate=2048",
            "--entity-type",
            "users",
            "--entity-name",
            "alice",
            "--entity-type",
            "clients",
            "--entity-default");
    ChildProcess.Result describe =
        tool(
            configs,
            "--bootstrap-server",
            bootstrap,
            "--describe",
            "--entity-type",
            "clients",
            "--entity-name",
            "reporting");

    // Then
    assertThat(alterClient.stdout()).contains("Completed updating config");
    assertThat(alterUser.stdout()).contains("Completed updating config");
    assertThat(describe.stdout())
        .contains("producer_byte_rate=1048576")
        .contains("request_percentage=200");
    try (Admin admin = admin()) {
      var aliceDefault =
          admin
              .describeClientQuotas(
                  ClientQuotaFilter.containsOnly(
                      List.of(
                          ClientQuotaFilterComponent.ofEntity("user", "alice"),
                          ClientQuotaFilterComponent.ofDefaultEntity("client-id"))))
              .entities()
              .get();
      assertThat(aliceDefault).hasSize(1);
      assertThat(aliceDefault.values().iterator().next())
          .isEqualTo(Map.of("consumer_byte_rate", 2048.0));
      assertThat(
              admin
                  .describeClientQuotas(
                      ClientQuotaFilter.containsOnly(
                          List.of(ClientQuotaFilterComponent.ofEntity("user", "alice"))))
                  .entities()
                  .get())
          .as("strict: the user-and-client entity is not the user entity")
          .isEmpty();
      assertRefused(admin, "bogus_rate", 1.0);
      assertRefused(admin, "producer_byte_rate", -5.0);
    }
  }

  /** Setting {@code key} to {@code value} is refused with INVALID_REQUEST. */
  private static void assertRefused(Admin admin, String key, double value) {
    var alter =
        admin.alterClientQuotas(
            List.of(
                new ClientQuotaAlteration(
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "reporting")),
                    List.of(new ClientQuotaAlteration.Op(key, value)))));
    assertThat(alter.all())
        .failsWithin(Duration.ofSeconds(30))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(InvalidRequestException.class);
  }

  private static MetadataResponseData metadata(RawKafkaClient client, short version)
      throws Exception {
    ByteBuffer response = client.send(new MetadataRequestData().setTopics(List.of()), version);
    return new MetadataResponseData(new ByteBufferAccessor(response), version);
  }

  private static Admin admin() {
    return Admin.create(
        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROOK.bootstrapServers()));
  }

  /** Sets one quota and waits until the broker's metadata shows it. */
  static void setQuota(String type, String name, String key, double value) throws Exception {
    try (Admin admin = admin()) {
      setQuota(admin, type, name, key, value);
    }
  }

  /** Sets one quota through {@code admin} and waits until its broker's metadata shows it. */
  static void setQuota(Admin admin, String type, String name, String key, double value)
      throws Exception {
    ClientQuotaEntity entity = new ClientQuotaEntity(Map.of(type, name));
    admin
        .alterClientQuotas(
            List.of(
                new ClientQuotaAlteration(
                    entity, List.of(new ClientQuotaAlteration.Op(key, value)))))
        .all()
        .get();
    ClientQuotaFilter filter =
        ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntity(type, name)));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                Map.of(key, value)
                    .equals(admin.describeClientQuotas(filter).entities().get().get(entity)));
  }

  static double metric(
      Map<org.apache.kafka.common.MetricName, ? extends Metric> metrics, String name) {
    for (var e : metrics.entrySet()) {
      if (e.getKey().name().equals(name) && e.getValue().metricValue() instanceof Double d) {
        return d.isNaN() ? 0 : d;
      }
    }
    throw new AssertionError("no metric " + name);
  }

  private static ChildProcess.Result tool(String mainClass, String... args) {
    ChildProcess.Result result =
        ChildProcess.run(ChildProcess.javaCommand(mainClass, args), "", Duration.ofSeconds(60));
    assertThat(result.exitCode()).as(result.describe()).isZero();
    return result;
  }
}
