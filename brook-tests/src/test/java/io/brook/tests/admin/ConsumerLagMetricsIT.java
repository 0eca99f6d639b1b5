package io.brook.tests.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's consumer-group lag metrics on {@code /metrics} and JMX: a real consumer that read
 * part of a topic and stopped, on records whose timestamps the test set (so the records it has not
 * read are hours old without the test waiting), checked exactly in records and, in seconds and for
 * the data-loss forecast, against bounds from those timestamps and the test's own clock readings
 * around the refresh; a caught-up group on a topic that keeps records forever; and the series cap.
 */
@Timeout(120)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerLagMetricsIT {
  private static final long MINUTE = 60_000L;
  private static final long HOUR = 60 * MINUTE;
  private static final long RETENTION_MS = 24 * HOUR;

  @TempDir static Path root;
  private static EmbeddedBrook brook;

  @BeforeAll
  static void start() {
    brook =
        EmbeddedBrook.builder()
            .dataDir(root)
            .config("brook.admin.listener", "http://127.0.0.1:0")
            .config("brook.metrics.lag.interval.ms", "100")
            .config("brook.metrics.lag.max.series", "2")
            .config("group.initial.rebalance.delay.ms", "0")
            .start();
  }

  @AfterAll
  static void stop() {
    if (brook != null) {
      brook.close();
    }
  }

  /**
   * Ten records, one batch each, written 3 hours ago and one minute apart.
   *
   * @return their timestamps
   */
  private static long[] oldRecords(String topic, long retentionMs) throws Exception {
    TestClients.createTopic(
        brook.bootstrapServers(), topic, 1, Map.of("retention.ms", Long.toString(retentionMs)));
    long first = System.currentTimeMillis() - 3 * HOUR;
    long[] timestamps = new long[10];
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (int i = 0; i < timestamps.length; i++) {
        timestamps[i] = first + i * MINUTE;
        producer.send(new ProducerRecord<>(topic, 0, timestamps[i], null, new byte[] {(byte) i}));
        producer.flush(); // one batch per record: a batch's timestamp is its record's
      }
    }
    return timestamps;
  }

  /** A group member that reads {@code count} records of the topic, commits and leaves. */
  private static void consume(String group, String topic, int count) {
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(
            brook.bootstrapServers(),
            "group.id",
            group,
            "auto.offset.reset",
            "earliest",
            "max.poll.records",
            Integer.toString(count))) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
      while (read.size() < count) {
        consumer.poll(Duration.ofMillis(100)).forEach(read::add);
      }
      assertThat(read).hasSize(count);
      consumer.commitSync();
      TopicPartition tp = new TopicPartition(topic, 0);
      assertThat(consumer.committed(Set.of(tp)).get(tp).offset()).isEqualTo(count);
    }
  }

  /** Scrapes until {@code until} holds; the test's timeout bounds the wait. */
  private static Map<String, Double> scrapeUntil(Predicate<Map<String, Double>> until)
      throws Exception {
    while (true) {
      Map<String, Double> samples = PrometheusScrape.scrape(brook.server().adminPort());
      if (until.test(samples)) {
        return samples;
      }
      Thread.sleep(50); // the poll interval of a wait on a condition, not a timing assumption
    }
  }

  private static String series(String family, String group, String topic) {
    return family + "{consumergroup=\"" + group + "\",partition=\"0\",topic=\"" + topic + "\"}";
  }

  @Test
  @Order(1)
  void aStoppedConsumersLagInRecordsSecondsAndItsDataLossForecast() throws Exception {
    // Given ten records three hours old on a topic that keeps them a day
    long[] timestamps = oldRecords("orders", RETENTION_MS);

    // When a consumer reads four of them, commits and stops
    long before = System.currentTimeMillis();
    consume("paused", "orders", 4);
    Map<String, Double> samples =
        scrapeUntil(s -> s.containsKey(series("kafka_consumergroup_lag", "paused", "orders")));
    long after = System.currentTimeMillis();

    // Then its lag is the six records it did not read
    assertThat(samples.get(series("kafka_consumergroup_lag", "paused", "orders"))).isEqualTo(6.0);
    // And the lag in seconds is the age of record 4 when the broker computed it: between the
    // commit and the scrape
    double ageBefore = (before - timestamps[4]) / 1000.0;
    double ageAfter = (after - timestamps[4]) / 1000.0;
    double lagSeconds = samples.get(series("kafka_consumergroup_lag_seconds", "paused", "orders"));
    assertThat(lagSeconds).isBetween(ageBefore, ageAfter);
    // And with nothing consumed since, retention deletes record 4 when it is a day old
    double forecast =
        samples.get(series("kafka_consumergroup_loss_forecast_seconds", "paused", "orders"));
    assertThat(forecast)
        .isBetween(RETENTION_MS / 1000.0 - ageAfter, RETENTION_MS / 1000.0 - ageBefore);
    // And the group's summary says the same
    assertThat(samples.get("kafka_consumergroup_lag_sum{consumergroup=\"paused\"}")).isEqualTo(6.0);
    assertThat(samples.get("kafka_consumergroup_lag_seconds_max{consumergroup=\"paused\"}"))
        .isBetween(ageBefore, ageAfter);
    assertThat(
            samples.get("kafka_consumergroup_loss_forecast_seconds_min{consumergroup=\"paused\"}"))
        .isBetween(RETENTION_MS / 1000.0 - ageAfter, RETENTION_MS / 1000.0 - ageBefore);
    // And JMX shows the same figures
    Object jmxLag =
        ManagementFactory.getPlatformMBeanServer()
            .getAttribute(
                new ObjectName(
                    "kafka:type=consumergroup,consumergroup=paused,topic=orders,partition=0"),
                "lag");
    assertThat(((Number) jmxLag).doubleValue()).isEqualTo(6.0);
  }

  @Test
  @Order(2)
  void aCaughtUpGroupOnATopicKeptForeverHasNoLagAndNoForecast() throws Exception {
    oldRecords("audit", -1);
    consume("caught-up", "audit", 10);

    Map<String, Double> samples =
        scrapeUntil(s -> s.containsKey(series("kafka_consumergroup_lag", "caught-up", "audit")));

    assertThat(samples.get(series("kafka_consumergroup_lag", "caught-up", "audit"))).isEqualTo(0.0);
    assertThat(samples.get(series("kafka_consumergroup_lag_seconds", "caught-up", "audit")))
        .isEqualTo(0.0);
    assertThat(samples)
        .doesNotContainKey(
            series("kafka_consumergroup_loss_forecast_seconds", "caught-up", "audit"))
        .doesNotContainKey(
            "kafka_consumergroup_loss_forecast_seconds_min{consumergroup=\"caught-up\"}");
  }

  @Test
  @Order(3)
  void groupsPastTheSeriesCapGetOnlyTheirSummary() throws Exception {
    // Given the cap of two group-partitions taken by "caught-up" and "paused" (by group id)
    oldRecords("late", RETENTION_MS);

    // When a third group commits
    consume("zz-over-the-cap", "late", 3);

    // Then it has its summary, and no series of its own
    Map<String, Double> samples =
        scrapeUntil(
            s -> s.containsKey("kafka_consumergroup_lag_sum{consumergroup=\"zz-over-the-cap\"}"));
    assertThat(samples.get("kafka_consumergroup_lag_sum{consumergroup=\"zz-over-the-cap\"}"))
        .isEqualTo(7.0);
    assertThat(
            samples.get("kafka_consumergroup_lag_seconds_max{consumergroup=\"zz-over-the-cap\"}"))
        .isPositive();
    assertThat(samples.keySet())
        .noneMatch(name -> name.startsWith("kafka_consumergroup_lag{consumergroup=\"zz-over"));
    assertThat(samples).containsKey(series("kafka_consumergroup_lag", "paused", "orders"));
  }
}
