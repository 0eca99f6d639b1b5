package io.brook.tests.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.EmbeddedBrookCluster;
import io.brook.tests.TestClients;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The consumer-group lag metrics of a group whose partitions are led by all three brokers of a
 * cluster: the group's coordinator measures the partitions it leads itself and asks the other two
 * leaders for theirs, so its {@code /metrics} shows every partition's lag exactly in records, and
 * in seconds within bounds from the timestamps the test wrote (hours old, so no waiting) and the
 * test's clock around the refresh.
 */
@Timeout(120)
class ClusterConsumerLagIT {
  private static final long MINUTE = 60_000L;
  private static final long HOUR = 60 * MINUTE;
  private static final String TOPIC = "spread";
  private static final String GROUP = "reporting";
  private static final int RECORDS = 10;

  private static EmbeddedBrookCluster cluster;

  @BeforeAll
  static void start() {
    cluster =
        EmbeddedBrookCluster.builder()
            .adminListeners()
            .config("brook.metrics.lag.interval.ms", "100")
            .start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Admin admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    return Admin.create(props);
  }

  private static String series(String family, int partition) {
    return family
        + "{consumergroup=\""
        + GROUP
        + "\",partition=\""
        + partition
        + "\",topic=\""
        + TOPIC
        + "\"}";
  }

  /** Scrapes {@code node} until {@code until} holds; the test's timeout bounds the wait. */
  private static Map<String, Double> scrapeUntil(int node, Predicate<Map<String, Double>> until)
      throws Exception {
    while (true) {
      Map<String, Double> samples = PrometheusScrape.scrape(cluster.adminPort(node));
      if (until.test(samples)) {
        return samples;
      }
      Thread.sleep(50); // the poll interval of a wait on a condition, not a timing assumption
    }
  }

  @Test
  void theCoordinatorMeasuresThePartitionsEveryBrokerLeads() throws Exception {
    List<Integer> nodes = cluster.nodeIds();
    int partitions = nodes.size();
    // Given one partition led by each broker, ten records each, one batch per record, written
    // three hours ago a minute apart
    Map<Integer, List<Integer>> assignment = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      assignment.put(p, List.of(nodes.get(p)));
    }
    long first = System.currentTimeMillis() - 3 * HOUR;
    int coordinator;
    long before;
    Map<Integer, Long> committed = new HashMap<>();
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, assignment))).all().get();
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(cluster.bootstrapServers())) {
        for (int p = 0; p < partitions; p++) {
          for (int i = 0; i < RECORDS; i++) {
            producer.send(new ProducerRecord<>(TOPIC, p, first + i * MINUTE, null, new byte[1]));
            producer.flush(); // one batch per record: a batch's timestamp is its record's
          }
        }
      }
      // When the group commits a different offset in each partition
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        committed.put(p, 2L + 3L * p);
        offsets.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(committed.get(p)));
      }
      before = System.currentTimeMillis();
      admin.alterConsumerGroupOffsets(GROUP, offsets).all().get();
      coordinator =
          admin
              .describeConsumerGroups(List.of(GROUP))
              .describedGroups()
              .get(GROUP)
              .get()
              .coordinator()
              .id();
    }

    // Then the coordinator's /metrics has every partition's lag, whichever broker leads it
    Map<String, Double> samples =
        scrapeUntil(
            coordinator,
            s ->
                assignment.keySet().stream()
                    .allMatch(
                        p ->
                            s.containsKey(series("kafka_consumergroup_lag", p))
                                && s.containsKey(series("kafka_consumergroup_lag_seconds", p))));
    long after = System.currentTimeMillis();
    long sum = 0;
    for (int p = 0; p < partitions; p++) {
      long offset = committed.get(p);
      // exactly the records after the committed offset
      assertThat(samples.get(series("kafka_consumergroup_lag", p))).isEqualTo(RECORDS - offset);
      sum += RECORDS - offset;
      // and the age of the record at the committed offset when the coordinator computed it
      long timestamp = first + offset * MINUTE;
      assertThat(samples.get(series("kafka_consumergroup_lag_seconds", p)))
          .isBetween((before - timestamp) / 1000.0, (after - timestamp) / 1000.0);
    }
    assertThat(samples.get("kafka_consumergroup_lag_sum{consumergroup=\"" + GROUP + "\"}"))
        .isEqualTo((double) sum);
    // the oldest unread record is partition 0's
    assertThat(samples.get("kafka_consumergroup_lag_seconds_max{consumergroup=\"" + GROUP + "\"}"))
        .isBetween(
            (before - (first + committed.get(0) * MINUTE)) / 1000.0,
            (after - (first + committed.get(0) * MINUTE)) / 1000.0);
  }
}
