package io.brook.tests.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testkit.EmbeddedBrook;
import io.brook.testports.PortAllocator;
import io.brook.tests.TestClients;
import io.brook.tests.cluster.ClusterHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The console's pages on a cluster holding 2,000 topics of 12 partitions (24,000), 121 groups (one
 * committed on all 24,000 partitions) and 61 transactions (one writing to 300 partitions), loaded
 * in headless Chromium. Each page shows a page of the cluster, never all of it: the rows on the
 * page and the size of every JSON answer are asserted, and the big group's totals over all its
 * partitions. How long each page takes, from the navigation's start until its data is rendered (the
 * {@code rendered:<page>} mark the console sets), and each of its API calls (the browser's resource
 * timing), is printed and written to {@code target/console-scale.txt}, never asserted
 * (docs/operations.md records the figures).
 *
 * <p>One in-process node by default; {@code -Dbrook.console.scale.nodes=3} runs three {@code brook
 * server} processes instead, the topics' single replicas spread over them, so the console on node 1
 * asks the other two for the ends of the partitions they lead.
 *
 * <p>Minutes long (creating 24,000 partitions): kept out of the default suite, run by the {@code
 * console-scale} profile.
 */
@Timeout(1800)
class ConsoleScaleIT {
  private static final int TOPICS = 2_000;
  private static final int PARTITIONS = 12;
  private static final int GROUPS = 120;
  private static final int TRANSACTIONS = 60;
  private static final int WIDE_TRANSACTION_TOPICS = 300;
  private static final int RUNS = 5;

  /** The most one JSON answer may weigh: a page of rows, not 24,000 partitions. */
  private static final int MAX_ANSWER_BYTES = 128 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path root;

  private static String topic(int i) {
    return String.format(Locale.ROOT, "scale-%04d", i);
  }

  @Test
  void everyPageShowsAPageOfTwentyFourThousandPartitions() throws Exception {
    int nodes = Integer.getInteger("brook.console.scale.nodes", 1);
    try (ScaleCluster brook = ScaleCluster.start(root, nodes);
        Admin admin =
            Admin.create(
                Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    brook.bootstrapServers(),
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                    "300000",
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                    "120000"))) {
      String base = brook.consoleBase();
      long start = System.nanoTime();
      for (int from = 0; from < TOPICS; from += 100) {
        List<NewTopic> batch = new ArrayList<>();
        for (int i = from; i < from + 100; i++) {
          batch.add(new NewTopic(topic(i), PARTITIONS, (short) 1));
        }
        admin.createTopics(batch).all().get();
      }
      long createdMs = (System.nanoTime() - start) / 1_000_000;

      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(brook.bootstrapServers())) {
        for (int p = 0; p < PARTITIONS; p++) {
          for (int i = 0; i < 100; i++) {
            producer.send(
                new ProducerRecord<>(topic(0), p, bytes("key-" + i), bytes("value-" + i)));
          }
        }
        producer.flush();
      }
      // Groups: each committed on one topic's partitions, and one on every partition.
      Map<TopicPartition, OffsetAndMetadata> everything = new HashMap<>();
      for (int t = 0; t < TOPICS; t++) {
        for (int p = 0; p < PARTITIONS; p++) {
          everything.put(new TopicPartition(topic(t), p), new OffsetAndMetadata(0));
        }
      }
      // In commits of 2,000 partitions: one request of all would exceed a batch's size limit.
      List<TopicPartition> all = new ArrayList<>(everything.keySet());
      for (int from = 0; from < all.size(); from += 2_000) {
        Map<TopicPartition, OffsetAndMetadata> chunk = new HashMap<>();
        for (TopicPartition tp : all.subList(from, Math.min(from + 2_000, all.size()))) {
          chunk.put(tp, everything.get(tp));
        }
        admin.alterConsumerGroupOffsets("scale-group-all", chunk).all().get();
      }
      for (int g = 0; g < GROUPS; g++) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
          offsets.put(new TopicPartition(topic(g), p), new OffsetAndMetadata(0));
        }
        admin
            .alterConsumerGroupOffsets(String.format(Locale.ROOT, "scale-group-%03d", g), offsets)
            .all()
            .get();
      }
      // Committed transactions, and one left open on 300 partitions.
      for (int x = 0; x < TRANSACTIONS; x++) {
        try (KafkaProducer<byte[], byte[]> producer =
            TestClients.producer(
                brook.bootstrapServers(),
                "transactional.id",
                String.format(Locale.ROOT, "scale-txn-%02d", x))) {
          producer.initTransactions();
          producer.beginTransaction();
          producer.send(new ProducerRecord<>(topic(x), 1, null, bytes("txn"))).get();
          producer.commitTransaction();
        }
      }
      try (KafkaProducer<byte[], byte[]> wide =
          TestClients.producer(brook.bootstrapServers(), "transactional.id", "scale-txn-wide")) {
        wide.initTransactions();
        wide.beginTransaction();
        for (int t = 0; t < WIDE_TRANSACTION_TOPICS; t++) {
          wide.send(new ProducerRecord<>(topic(t), 2, null, bytes("wide")));
        }
        wide.flush();

        // The created ones and the internal topics (offsets, transaction state).
        int allTopics =
            admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get().size();
        // The console reads the broker's metadata image: every topic is there once it says so.
        await("every topic in the console")
            .atMost(Duration.ofMinutes(2))
            .until(
                () ->
                    api(base + "api/overview").path("partitions").path("topics").asInt()
                        == allTopics);
        JsonNode overview = api(base + "api/overview");
        List<String> others =
            admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get().stream()
                .filter(name -> !name.startsWith("scale-"))
                .toList();
        int internal =
            admin.describeTopics(others).allTopicNames().get().values().stream()
                .mapToInt(d -> d.partitions().size())
                .sum();
        assertThat(overview.path("partitions").path("total").asInt())
            .isEqualTo(TOPICS * PARTITIONS + internal);
        JsonNode wideRow = api(base + "api/transactions?q=wide").path("transactions").get(0);
        assertThat(wideRow.path("partition_count").asInt()).isEqualTo(WIDE_TRANSACTION_TOPICS);
        assertThat(wideRow.path("partitions")).hasSize(50);
        // The group committed offset 0 on every partition: its last page (topics no transaction
        // wrote to, no records), and its total lag, on its page and in the list, over all of
        // them: the sum of their ends (once the committed transactions' markers are written).
        JsonNode lastPage = api(base + "api/groups/scale-group-all?offset=23950");
        assertThat(lastPage.path("partition_count").asInt()).isEqualTo(TOPICS * PARTITIONS);
        assertThat(lastPage.path("partitions")).hasSize(50);
        JsonNode lastFirst = lastPage.path("partitions").get(0);
        assertThat(lastFirst.path("topic").asText()).isEqualTo(topic(1995));
        assertThat(lastFirst.path("partition").asInt()).isEqualTo(10);
        assertThat(lastFirst.path("lag_records").asLong()).isZero();
        JsonNode firstRow = api(base + "api/groups/scale-group-all").path("partitions").get(0);
        assertThat(firstRow.path("topic").asText()).isEqualTo(topic(0));
        assertThat(firstRow.path("lag_records").asLong()).isEqualTo(100);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        everything.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        await("scale-group-all's total lag is the sum of its partitions' ends")
            .atMost(Duration.ofMinutes(1))
            .until(
                () -> {
                  long ends =
                      admin.listOffsets(latest).all().get().values().stream()
                          .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset)
                          .sum();
                  return api(base + "api/groups/scale-group-all?offset=100")
                              .path("lag_records")
                              .asLong()
                          == ends
                      && api(base + "api/groups?q=scale-group-all")
                              .path("groups")
                              .get(0)
                              .path("lag_records")
                              .asLong()
                          == ends;
                });

        Map<String, Page> pages = new LinkedHashMap<>();
        pages.put("overview", new Page("#/overview", "overview", "#brokers tbody tr", nodes, null));
        pages.put(
            "topics",
            new Page(
                "#/topics",
                "topics",
                "#topics tbody tr",
                50,
                String.format(Locale.US, "1–50 of %,d", allTopics),
                "scale-topics"));
        pages.put(
            "topics, searched",
            new Page("#/topics?q=scale-19", "topics", "#topics tbody tr", 50, "1–50 of 100"));
        pages.put(
            "a topic",
            new Page("#/topics/" + topic(0), "topics", "#partitions tbody tr", 12, null));
        pages.put("groups", new Page("#/groups", "groups", "#groups tbody tr", 50, "1–50 of 121"));
        pages.put(
            "a group of 24,000 partitions",
            new Page(
                "#/groups/scale-group-all",
                "groups",
                "#group-partitions tbody tr",
                100,
                "1–100 of 24,000",
                "scale-group"));
        pages.put(
            "transactions",
            new Page("#/transactions", "transactions", "#transactions tbody tr", 50, "1–50 of 61"));
        pages.put(
            "messages",
            new Page("#/messages?topic=" + topic(0), "messages", "#records tbody tr", 20, null));

        StringBuilder report = new StringBuilder();
        report.append(
            String.format(
                Locale.ROOT,
                "%d topics x %d partitions on %d node(s), created in %d s; %d loads per page,"
                    + " median (max) ms from navigation start%n",
                TOPICS,
                PARTITIONS,
                nodes,
                createdMs / 1000,
                RUNS));
        // Checked after the figures are written, so a failed check still leaves them.
        SoftAssertions structure = new SoftAssertions();
        try (Browser browser = new Browser(root.resolve("chromium"))) {
          for (Map.Entry<String, Page> entry : pages.entrySet()) {
            report.append(measure(browser, base, entry.getKey(), entry.getValue(), structure));
          }
        }
        System.out.print(report);
        Files.writeString(Path.of("target", "console-scale.txt"), report);
        wide.abortTransaction();
        structure.assertAll();
      }
    }
  }

  /** One in-process node, or {@code count} {@code brook server} processes, each with a console. */
  private static final class ScaleCluster implements AutoCloseable {
    private final EmbeddedBrook single;
    private final ClusterHarness cluster;
    private final int consolePort;

    private ScaleCluster(EmbeddedBrook single, ClusterHarness cluster, int consolePort) {
      this.single = single;
      this.cluster = cluster;
      this.consolePort = consolePort;
    }

    static ScaleCluster start(Path root, int count) throws Exception {
      if (count == 1) {
        EmbeddedBrook brook =
            EmbeddedBrook.builder()
                .dataDir(root.resolve("data"))
                .config("brook.admin.listener", "http://127.0.0.1:0")
                .start();
        return new ScaleCluster(brook, null, brook.server().adminPort());
      }
      Map<Integer, Integer> adminPorts = new HashMap<>();
      for (int id = 1; id <= count; id++) {
        adminPorts.put(id, PortAllocator.shared().allocate());
      }
      ClusterHarness cluster =
          ClusterHarness.start(
              Files.createDirectories(root.resolve("cluster")),
              count,
              Map.of(),
              id -> Map.of("brook.admin.listener", "http://127.0.0.1:" + adminPorts.get(id)));
      return new ScaleCluster(null, cluster, adminPorts.get(1));
    }

    String bootstrapServers() {
      return single != null ? single.bootstrapServers() : cluster.bootstrapServers();
    }

    /** The console of node 1. */
    String consoleBase() {
      return "http://127.0.0.1:" + consolePort + "/console/";
    }

    @Override
    public void close() throws Exception {
      if (single != null) {
        single.close();
      } else {
        cluster.close();
      }
    }
  }

  /**
   * A page to load: its address, the name the console sets on {@code body} once rendered, the rows
   * it must show, its pager's text (null: no pager) and the name of its screenshot for the docs
   * (null: none).
   */
  private record Page(
      String hash, String name, String rows, int rowCount, String pager, String screenshot) {
    Page(String hash, String name, String rows, int rowCount, String pager) {
      this(hash, name, rows, rowCount, pager, null);
    }
  }

  /** Loads the page {@link #RUNS} times, each a new document; one line of figures. */
  private static String measure(
      Browser browser, String base, String label, Page page, SoftAssertions structure)
      throws Exception {
    List<Double> rendered = new ArrayList<>();
    List<Double> loaded = new ArrayList<>();
    Map<String, List<Double>> calls = new TreeMap<>();
    Map<String, Long> sizes = new TreeMap<>();
    for (int run = 0; run < RUNS; run++) {
      // A new document each time: the navigation's timeline starts again.
      browser.driver().get("about:blank");
      browser.open(base + page.hash(), page.name());
      structure
          .assertThat(browser.driver().findElements(By.cssSelector(page.rows())))
          .as(label)
          .hasSize(page.rowCount());
      if (page.pager() != null) {
        structure
            .assertThat(browser.driver().findElement(By.id("page-info")).getText())
            .as(label)
            .isEqualTo(page.pager());
      }
      String figures =
          (String)
              browser.driver.executeScript(
                  "const mark = performance.getEntriesByName('rendered:' + arguments[0])[0];"
                      + "const nav = performance.getEntriesByType('navigation')[0];"
                      + "const api = performance.getEntriesByType('resource')"
                      + "  .filter((r) => r.name.includes('/console/api/'));"
                      + "return JSON.stringify({ rendered: mark.startTime,"
                      + "  loaded: nav.domContentLoadedEventEnd,"
                      + "  api: api.map((r) => ({ name: r.name, ms: r.duration,"
                      + "    bytes: r.encodedBodySize })) });",
                  page.name());
      JsonNode f = JSON.readTree(figures);
      rendered.add(f.get("rendered").asDouble());
      loaded.add(f.get("loaded").asDouble());
      for (JsonNode call : f.get("api")) {
        String name = call.get("name").asText().replaceAll("^.*/console/api/", "");
        calls.computeIfAbsent(name, n -> new ArrayList<>()).add(call.get("ms").asDouble());
        long bytes = call.get("bytes").asLong();
        structure.assertThat(bytes).as("the answer to %s", name).isLessThan(MAX_ANSWER_BYTES);
        sizes.merge(name, bytes, Math::max);
      }
    }
    if (page.screenshot() != null) {
      browser.screenshot(page.screenshot());
    }
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%-30s rendered %5.0f (%5.0f)  DOMContentLoaded %4.0f  api:",
                label,
                median(rendered),
                max(rendered),
                median(loaded)));
    for (Map.Entry<String, List<Double>> call : calls.entrySet()) {
      line.append(
          String.format(
              Locale.ROOT,
              " %s %.0f ms %d B;",
              call.getKey(),
              median(call.getValue()),
              sizes.get(call.getKey())));
    }
    return line.append(System.lineSeparator()).toString();
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  private static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }

  private static JsonNode api(String url) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
