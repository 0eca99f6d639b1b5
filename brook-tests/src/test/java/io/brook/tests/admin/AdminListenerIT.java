package io.brook.tests.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
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
 * The admin HTTP listener of one real node with two log directories: {@code /metrics} in the
 * Prometheus format with Kafka's names, moving under kafka-clients traffic; the same metrics on JMX
 * under Kafka's object names; {@code /ready} and {@code /health} 200, then {@code /health} 503 once
 * a log directory goes offline (last, as it takes partitions offline).
 */
@Timeout(120)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdminListenerIT {
  @TempDir static Path root;
  private static EmbeddedBrook brook;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws IOException {
    Path a = Files.createDirectories(root.resolve("a"));
    Path b = Files.createDirectories(root.resolve("b"));
    brook =
        EmbeddedBrook.builder()
            .dataDir(root)
            .config("log.dirs", a + "," + b)
            .config("brook.admin.listener", "http://127.0.0.1:0")
            .start();
  }

  @AfterAll
  static void stop() {
    if (brook != null) {
      brook.close();
    }
  }

  @Test
  @Order(1)
  void metricsUseKafkasNamesAndBytesInMatchesWhatTheProducerSent() throws Exception {
    // Given
    TestClients.createTopic(brook.bootstrapServers(), "metered", 1);
    Map<String, Double> before = scrape();

    // When a producer sends 200 records and a consumer reads them
    double sent;
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(brook.bootstrapServers(), "linger.ms", "5")) {
      for (int i = 0; i < 200; i++) {
        producer.send(new ProducerRecord<>("metered", 0, null, new byte[100 + i]));
      }
      producer.flush();
      sent = topicByteTotal(producer.metrics(), "metered");
    }
    try (KafkaConsumer<byte[], byte[]> consumer = TestClients.consumer(brook.bootstrapServers())) {
      consumer.assign(java.util.List.of(new TopicPartition("metered", 0)));
      consumer.seekToBeginning(java.util.List.of(new TopicPartition("metered", 0)));
      int read = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (read < 200 && System.nanoTime() < deadline) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(java.time.Duration.ofMillis(200));
        read += records.count();
      }
      assertThat(read).isEqualTo(200);
    }
    Map<String, Double> after = scrape();

    // Then the broker's bytes in equal what the producer sent, within 1%
    double bytesIn = after.get("kafka_server_brokertopicmetrics_bytesin_total{topic=\"metered\"}");
    assertThat(sent).isPositive();
    assertThat(bytesIn).isCloseTo(sent, offset(sent * 0.01));
    assertThat(after.get("kafka_server_brokertopicmetrics_messagesin_total{topic=\"metered\"}"))
        .isEqualTo(200.0);
    assertThat(after.get("kafka_server_brokertopicmetrics_bytesout_total{topic=\"metered\"}"))
        .isGreaterThanOrEqualTo(bytesIn);
    // And the all-topics meters and the request metrics moved
    assertThat(after.get("kafka_server_brokertopicmetrics_bytesin_total"))
        .isGreaterThan(before.getOrDefault("kafka_server_brokertopicmetrics_bytesin_total", 0.0));
    assertThat(after.get("kafka_network_requestmetrics_requests_total{request=\"Produce\"}"))
        .isGreaterThan(
            before.getOrDefault(
                "kafka_network_requestmetrics_requests_total{request=\"Produce\"}", 0.0));
    assertThat(after)
        .containsKey(
            "kafka_network_requestmetrics_totaltimems{quantile=\"0.99\",request=\"Fetch\"}");
    assertThat(after.get("kafka_server_replicamanager_partitioncount")).isGreaterThanOrEqualTo(1.0);
    assertThat(after.get("kafka_server_replicamanager_underreplicatedpartitions")).isEqualTo(0.0);
    // And the partition's log gauges and the controller's cluster counts
    assertThat(after.get("kafka_log_log_size{partition=\"0\",topic=\"metered\"}")).isPositive();
    assertThat(after.get("kafka_log_log_logendoffset{partition=\"0\",topic=\"metered\"}"))
        .isEqualTo(200.0);
    assertThat(after.get("kafka_controller_kafkacontroller_offlinepartitionscount")).isZero();
    assertThat(after.get("kafka_controller_kafkacontroller_activebrokercount")).isEqualTo(1.0);
    assertThat(after.get("kafka_controller_kafkacontroller_globalpartitioncount"))
        .isGreaterThanOrEqualTo(1.0);
    assertThat(after.get("kafka_controller_kafkacontroller_lastappliedrecordoffset")).isPositive();
    assertThat(after).containsKey("kafka_controller_controllereventmanager_eventqueuesize");
    // And the JVM's metrics are there too
    assertThat(after.keySet()).anyMatch(name -> name.startsWith("jvm_memory_used_bytes"));
  }

  @Test
  @Order(2)
  void openMetricsWhenAskedAndKafkasJmxNamesStillWork() throws Exception {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(uri("/metrics"))
                .header("Accept", "application/openmetrics-text; version=1.0.0")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/openmetrics-text");
    assertThat(response.body()).endsWith("# EOF\n");

    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    assertThat(
            server.getAttribute(
                new ObjectName("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"),
                "Value"))
        .isEqualTo(0);
    Number count =
        (Number)
            server.getAttribute(
                new ObjectName(
                    "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=metered"),
                "Count");
    assertThat(count.longValue()).isEqualTo(200);
  }

  @Test
  @Order(3)
  void readyAndHealthyWhileServing() throws Exception {
    HttpResponse<String> ready = get("/ready");
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).contains("\"status\":\"UP\"").contains("\"name\":\"unfenced\"");
    HttpResponse<String> health = get("/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(get("/nothing").statusCode()).isEqualTo(404);
  }

  @Test
  @Order(4)
  void healthFailsWhenALogDirectoryGoesOffline() throws Exception {
    // When a directory fails (as the storage layer reports a disk error)
    Path failing = root.resolve("b");
    brook
        .server()
        .replicaManager()
        .logManager()
        .dirFailures()
        .markOffline(failing, "a test", new IOException("simulated disk error"));

    // Then /health is 503 and names the directory
    HttpResponse<String> health = get("/health");
    assertThat(health.statusCode()).isEqualTo(503);
    assertThat(health.body())
        .contains("\"name\":\"log-dirs\"")
        .contains("\"status\":\"DOWN\"")
        .contains(failing.toString());
    assertThat(scrape().get("kafka_log_logmanager_offlinelogdirectorycount")).isEqualTo(1.0);
  }

  private static double topicByteTotal(Map<MetricName, ? extends Metric> metrics, String topic) {
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      MetricName name = e.getKey();
      if (name.group().equals("producer-topic-metrics")
          && name.name().equals("byte-total")
          && topic.equals(name.tags().get("topic"))) {
        return ((Number) e.getValue().metricValue()).doubleValue();
      }
    }
    throw new AssertionError("no byte-total for " + topic);
  }

  private static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + brook.server().adminPort() + path);
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static Map<String, Double> scrape() throws Exception {
    return PrometheusScrape.scrape(brook.server().adminPort());
  }
}
