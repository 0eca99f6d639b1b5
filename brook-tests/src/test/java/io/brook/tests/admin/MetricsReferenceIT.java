package io.brook.tests.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.brook.protocol.metrics.BrokerMetrics;
import io.brook.server.admin.MetricsReference;
import io.brook.server.admin.PerInstanceMetrics;
import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics reference of docs/operations.md is the registry of a real node, with the families it
 * registers per topic, partition, group or client taken from {@link PerInstanceMetrics}: the test
 * fails when they differ; run it with {@code -Dbrook.docs.write=true} to rewrite the page. The node
 * serves every kind of instance (producers and consumers under client quotas, a consumer group, a
 * share group, a tiered topic, topic creation under the controller mutation quota), and what it
 * registered per instance, recorded as it registered it, must be the catalogue exactly. And every
 * metric the Grafana dashboard and the Prometheus alerting rules name is one the node publishes.
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

  /** Every metric the node registered since it started, whether or not it still exists. */
  private static final Set<MetricName> REGISTERED = ConcurrentHashMap.newKeySet();

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
    brook.server().metrics().registry().addReporter(new Recorder());
    // Quotas for every client, far above what the test sends, so that the clients' quota metrics
    // include their tokens and those of the request and controller mutation quotas.
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", brook.bootstrapServers()))) {
      admin
          .alterClientQuotas(
              List.of(
                  new ClientQuotaAlteration(
                      new ClientQuotaEntity(
                          Collections.singletonMap(ClientQuotaEntity.CLIENT_ID, null)),
                      List.of(
                          new ClientQuotaAlteration.Op("producer_byte_rate", 1e12),
                          new ClientQuotaAlteration.Op("consumer_byte_rate", 1e12),
                          new ClientQuotaAlteration.Op("request_percentage", 1e9),
                          new ClientQuotaAlteration.Op("controller_mutation_rate", 1e9)))))
          .all()
          .get();
    }
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
    // Traffic of every kind until the node has registered every per-instance metric once (the
    // quotas reach the broker with its metadata, the share group's metrics with their next
    // refresh) and publishes the lag metrics (the next lag refresh) and the remote ones (the first
    // copy), which the dashboard and the alerts name. A catalogued metric the node never registers
    // would keep this going: after 30 s the tests run anyway, and the catalogue's test names
    // what is missing.
    Properties shareProps = new Properties();
    shareProps.put("bootstrap.servers", brook.bootstrapServers());
    shareProps.put("group.id", "reference-share");
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers());
        KafkaConsumer<byte[], byte[]> consumer = TestClients.consumer(brook.bootstrapServers());
        KafkaShareConsumer<byte[], byte[]> share =
            new KafkaShareConsumer<>(
                shareProps, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      share.subscribe(List.of("reference"));
      int topics = 0;
      long giveUp = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
      while ((System.nanoTime() - giveUp < 0 && !unregistered().isEmpty())
          || !PrometheusScrape.scrape(brook.server().adminPort())
              .containsKey(
                  "kafka_consumergroup_loss_forecast_seconds_min{consumergroup=\"reference-group\"}")
          || !PrometheusScrape.scrape(brook.server().adminPort())
              .containsKey(
                  "kafka_server_brokertopicmetrics_remotecopybytes_total{topic=\"reference-tiered\"}")) {
        producer.send(new ProducerRecord<>("reference", 0, hourAgo, null, new byte[] {3})).get();
        consumer.seekToBeginning(List.of(tp));
        consumer.poll(java.time.Duration.ofMillis(50));
        share.poll(java.time.Duration.ofMillis(50)); // also the poll interval of the wait
        if (unregistered().stream().anyMatch(e -> e.contains("ControllerMutation"))) {
          TestClients.createTopic(brook.bootstrapServers(), "reference-created-" + topics++, 1);
        }
      }
    }
  }

  /** Records every metric the registry adds, as it adds it. */
  private static final class Recorder implements MetricsReporter {
    @Override
    public void configure(Map<String, ?> configs) {}

    @Override
    public void init(List<KafkaMetric> metrics) {
      metrics.forEach(m -> REGISTERED.add(m.metricName()));
    }

    @Override
    public void metricChange(KafkaMetric metric) {
      REGISTERED.add(metric.metricName());
    }

    @Override
    public void metricRemoval(KafkaMetric metric) {}

    @Override
    public void close() {}
  }

  /** The reference entries of {@code names} registered per instance. */
  private static Set<String> perInstanceEntries(Collection<MetricName> names) {
    Set<String> entries = new TreeSet<>();
    for (MetricName name : names) {
      String entry = MetricsReference.entry(name);
      if (entry != null && PerInstanceMetrics.isPerInstance(name)) {
        entries.add(entry);
      }
    }
    return entries;
  }

  /** The catalogue's entries the node has not registered yet. */
  private static Set<String> unregistered() {
    Set<String> missing = perInstanceEntries(PerInstanceMetrics.all());
    missing.removeAll(perInstanceEntries(List.copyOf(REGISTERED)));
    return missing;
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
  void theCatalogueOfPerInstanceMetricsIsWhatTheNodeRegistersPerInstance() {
    assertThat(perInstanceEntries(List.copyOf(REGISTERED)))
        .as("PerInstanceMetrics against what the node registered per instance")
        .isEqualTo(perInstanceEntries(PerInstanceMetrics.all()));
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
