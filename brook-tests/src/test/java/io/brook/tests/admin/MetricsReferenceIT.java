package io.brook.tests.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.server.admin.MetricsReference;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics reference of docs/operations.md is the registry of a real node (one that served a
 * producer and a consumer group, so the per-topic, per-partition and per-group metrics exist): the
 * test fails when they differ; run it with {@code -Dbrook.docs.write=true} to rewrite the page. And
 * every metric the Grafana dashboard and the Prometheus alerting rules name is one the node
 * publishes.
 */
@Timeout(120)
class MetricsReferenceIT {
  private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");
  private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "brook-overview.json");
  private static final Path RULES = Path.of("..", "docs", "prometheus", "brook-alerts.yml");

  /** Names in a PromQL expression that are metrics: Brook's, the JVM's and the process's. */
  private static final Pattern METRIC =
      Pattern.compile("\\b((?:kafka|brook|jvm|process)_[a-zA-Z0-9_:]*)");

  @TempDir static Path root;
  private static EmbeddedBrook brook;

  @BeforeAll
  static void start() throws Exception {
    brook =
        EmbeddedBrook.builder()
            .dataDir(root.resolve("data"))
            // Tiered storage on (its store next to the data), so its metrics are listed too.
            .config("remote.log.storage.system.enable", "true")
            .config("remote.log.manager.task.interval.ms", "100")
            .config("brook.admin.listener", "http://127.0.0.1:0")
            .config("brook.metrics.lag.interval.ms", "100")
            .start();
    TestClients.createTopic(
        brook.bootstrapServers(), "reference", 1, Map.of("retention.ms", "86400000"));
    long hourAgo = System.currentTimeMillis() - 3_600_000L;
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      producer.send(new ProducerRecord<>("reference", 0, hourAgo, null, new byte[] {1})).get();
      producer.send(new ProducerRecord<>("reference", 0, hourAgo, null, new byte[] {2})).get();
    }
    TopicPartition tp = new TopicPartition("reference", 0);
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(brook.bootstrapServers(), "group.id", "reference-group")) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      consumer.poll(java.time.Duration.ofMillis(500));
      consumer.commitSync(Map.of(tp, new OffsetAndMetadata(1)));
    }
    // A tiered topic with a rolled segment, so the per-topic remote storage metrics exist too.
    TestClients.createTopic(
        brook.bootstrapServers(),
        "reference-tiered",
        1,
        Map.of("remote.storage.enable", "true", "segment.bytes", "1048576"));
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (int i = 0; i < 2; i++) {
        producer.send(new ProducerRecord<>("reference-tiered", 0, null, new byte[600_000])).get();
      }
    }
    // The lag metrics appear with the next refresh, the remote ones with the first copy.
    while (!PrometheusScrape.scrape(brook.server().adminPort())
            .containsKey(
                "kafka_consumergroup_loss_forecast_seconds_min{consumergroup=\"reference-group\"}")
        || !PrometheusScrape.scrape(brook.server().adminPort())
            .containsKey(
                "kafka_server_brokertopicmetrics_remotecopybytes_total{topic=\"reference-tiered\"}")) {
      Thread.sleep(50); // the poll interval of a wait on a condition
    }
  }

  @AfterAll
  static void stop() {
    if (brook != null) {
      brook.close();
    }
  }

  @Test
  void theOperationsPageListsExactlyTheRegistrysMetrics() throws Exception {
    String page = Files.readString(OPERATIONS, StandardCharsets.UTF_8);
    String generated =
        MetricsReference.replaceIn(page, MetricsReference.markdown(brook.server().metrics()));
    if (Boolean.getBoolean("brook.docs.write")) {
      Files.writeString(OPERATIONS, generated, StandardCharsets.UTF_8);
      page = generated;
    }
    assertThat(page)
        .as("docs/operations.md's metrics reference is stale; rerun with -Dbrook.docs.write=true")
        .isEqualTo(generated);
  }

  @Test
  void requestTimingMetricsMoveUnderTraffic() throws Exception {
    List<String> phases =
        List.of(
            "RequestQueueTimeMs",
            "LocalTimeMs",
            "RemoteTimeMs",
            "ThrottleTimeMs",
            "ResponseQueueTimeMs",
            "ResponseSendTimeMs",
            "TotalTimeMs");
    Map<String, Double> before = new java.util.HashMap<>();
    for (String phase : phases) {
      before.put(phase, requestCount(phase, "Produce"));
    }

    // When a producer sends 20 requests, each waiting for its answer
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (int i = 0; i < 20; i++) {
        producer.send(new ProducerRecord<>("reference", 0, null, new byte[] {(byte) i})).get();
      }
    }

    // Then every phase of Produce counted at least those 20 requests
    for (String phase : phases) {
      assertThat(requestCount(phase, "Produce") - before.get(phase))
          .as("%s of Produce requests", phase)
          .isGreaterThanOrEqualTo(20);
    }
    // And the idle shares of the event loops and of the disk pool are published as ratios
    Map<String, Double> samples = PrometheusScrape.scrape(brook.server().adminPort());
    assertThat(samples.get("kafka_network_socketserver_networkprocessoravgidlepercent"))
        .isBetween(0.0, 1.0);
    assertThat(samples.get("kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent"))
        .isBetween(0.0, 1.0);
  }

  /** How many requests of {@code api} a phase's histogram has recorded (its JMX Count). */
  private static double requestCount(String phase, String api) {
    org.apache.kafka.common.Metric count =
        brook
            .server()
            .metrics()
            .registry()
            .metric(
                BrokerMetrics.name(
                    "kafka.network", "RequestMetrics", phase, BrokerMetrics.COUNT, "request", api));
    assertThat(count).as("%s of %s", phase, api).isNotNull();
    return ((Number) count.metricValue()).doubleValue();
  }

  @Test
  void theDashboardAndTheAlertsNameOnlyPublishedMetrics() throws Exception {
    Set<String> published = published();

    List<String> expressions = new ArrayList<>();
    collect(new ObjectMapper().readTree(DASHBOARD.toFile()), "expr", expressions);
    int panelQueries = expressions.size();
    collect(new YAMLMapper().readTree(RULES.toFile()), "expr", expressions);

    assertThat(panelQueries).isGreaterThan(10);
    assertThat(expressions.size() - panelQueries).isGreaterThanOrEqualTo(5);
    Set<String> named = new TreeSet<>();
    for (String expression : expressions) {
      Matcher m = METRIC.matcher(expression);
      while (m.find()) {
        named.add(m.group(1));
      }
    }
    assertThat(named).isNotEmpty();
    assertThat(published).containsAll(named);
  }

  /** The metric names of the node's {@code /metrics}, as samples name them. */
  private static Set<String> published() throws Exception {
    Set<String> names = new TreeSet<>();
    for (String sample : PrometheusScrape.scrape(brook.server().adminPort()).keySet()) {
      int brace = sample.indexOf('{');
      names.add(brace < 0 ? sample : sample.substring(0, brace));
    }
    return names;
  }

  private static void collect(JsonNode node, String field, List<String> into) {
    if (node.isObject()) {
      node.fields()
          .forEachRemaining(
              e -> {
                if (e.getKey().equals(field) && e.getValue().isTextual()) {
                  into.add(e.getValue().asText());
                } else {
                  collect(e.getValue(), field, into);
                }
              });
    } else if (node.isArray()) {
      node.forEach(child -> collect(child, field, into));
    }
  }
}
