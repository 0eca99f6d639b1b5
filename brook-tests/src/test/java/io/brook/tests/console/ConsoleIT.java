package io.brook.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.EmbeddedBrook;
import io.brook.tests.TestClients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The web console of one real broker in headless Chromium: what the page shows against what
 * kafka-clients sees and does (Admin, a producer, a group's committed offsets), and a topic created
 * through the page seen by Admin. One broker and one browser for the class.
 */
@Timeout(120)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleIT {
  @TempDir static Path root;
  private static EmbeddedBrook brook;
  private static Admin admin;
  private static Browser browser;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    brook =
        EmbeddedBrook.builder()
            .dataDir(root.resolve("data"))
            .config("brook.admin.listener", "http://127.0.0.1:0")
            .start();
    admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers()));
    browser = new Browser(root.resolve("chromium"));
    base = "http://127.0.0.1:" + brook.server().adminPort();
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (admin != null) {
      admin.close();
    }
    if (brook != null) {
      brook.close();
    }
  }

  @Test
  @Order(1)
  void overviewListsTheBroker() throws Exception {
    // The listener's root leads to the console.
    browser.open(base + "/", "overview");
    assertThat(browser.driver().getCurrentUrl()).startsWith(base + "/console/");
    By state = By.cssSelector("#brokers tr[data-broker-id='1'] td.state");
    browser.waitText(state, "active");
    assertThat(browser.driver().findElement(By.cssSelector("#brokers")).getText())
        .contains("127.0.0.1:" + brook.port());
    browser.waitText(By.cssSelector("#stat-controller .value"), "1");
    browser.waitText(By.cssSelector("#stat-offline .value"), "0");
    browser.screenshot("overview");
  }

  @Test
  @Order(2)
  void topicPageMatchesDescribeTopics() throws Exception {
    admin.createTopics(List.of(new NewTopic("console-orders", 3, (short) 1))).all().get();
    browser.open(base + "/console/#/topics", "topics");
    browser.waitText(By.cssSelector("#topics tr[data-topic='console-orders'] td.partitions"), "3");
    browser.driver().findElement(By.linkText("console-orders")).click();
    browser.wait.until(
        ExpectedConditions.numberOfElementsToBe(By.cssSelector("#partitions tbody tr"), 3));
    TopicDescription described =
        admin.describeTopics(List.of("console-orders")).allTopicNames().get().get("console-orders");
    for (TopicPartitionInfo p : described.partitions()) {
      WebElement row =
          browser
              .driver()
              .findElement(
                  By.cssSelector("#partitions tr[data-partition='" + p.partition() + "']"));
      assertThat(row.findElement(By.cssSelector("td.leader")).getText())
          .isEqualTo(Integer.toString(p.leader().id()));
      assertThat(row.findElement(By.cssSelector("td.replicas")).getText())
          .isEqualTo(ids(p.replicas()));
      assertThat(row.findElement(By.cssSelector("td.isr")).getText()).isEqualTo(ids(p.isr()));
    }
    browser.screenshot("topic");
  }

  @Test
  @Order(3)
  void groupPageShowsCommittedOffsetsAndLag() throws Exception {
    TestClients.createTopic(brook.bootstrapServers(), "console-lag", 1);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>("console-lag", bytes("v" + i))).get();
      }
    }
    TopicPartition tp = new TopicPartition("console-lag", 0);
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(brook.bootstrapServers(), "group.id", "console-group")) {
      consumer.assign(List.of(tp));
      consumer.commitSync(Map.of(tp, new OffsetAndMetadata(4)));
    }
    browser.open(base + "/console/#/groups", "groups");
    browser.waitText(By.cssSelector("#groups tr[data-group='console-group'] td.lag"), "6");
    browser.driver().findElement(By.linkText("console-group")).click();
    browser.rendered("groups");
    browser.waitText(
        By.cssSelector("#group-partitions tr[data-tp='console-lag-0'] td.committed"), "4");
    browser.waitText(By.cssSelector("#group-partitions tr[data-tp='console-lag-0'] td.lag"), "6");
    browser.screenshot("group");
  }

  @Test
  @Order(4)
  void messageBrowserShowsAProducedRecordWithItsHeaders() throws Exception {
    TestClients.createTopic(brook.bootstrapServers(), "console-messages", 1);
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(brook.bootstrapServers())) {
      ProducerRecord<byte[], byte[]> record =
          new ProducerRecord<>("console-messages", 0, bytes("order-7"), bytes("{\"qty\":3}"));
      record.headers().add(new RecordHeader("trace-id", bytes("abc123")));
      producer.send(record).get();
    }
    browser.open(base + "/console/#/messages?topic=console-messages", "messages");
    By row = By.cssSelector("#records tr[data-offset='0']");
    browser.waitText(By.cssSelector("#records tr[data-offset='0'] td.key"), "order-7");
    WebElement record = browser.driver().findElement(row);
    assertThat(record.findElement(By.cssSelector("td.value")).getText()).isEqualTo("{\"qty\":3}");
    assertThat(record.findElement(By.cssSelector("td.headers")).getText())
        .isEqualTo("trace-id: abc123");
    // As hex, the same bytes.
    new org.openqa.selenium.support.ui.Select(browser.driver().findElement(By.id("msg-format")))
        .selectByValue("hex");
    browser.waitText(By.cssSelector("#records tr[data-offset='0'] td.key"), "6f 72 64 65 72 2d 37");
    new org.openqa.selenium.support.ui.Select(browser.driver().findElement(By.id("msg-format")))
        .selectByValue("json");
    browser.screenshot("messages");
  }

  @Test
  @Order(5)
  void topicCreatedInThePageIsSeenByAdmin() throws Exception {
    browser.open(base + "/console/#/topics", "topics");
    browser.driver().findElement(By.id("new-topic-name")).sendKeys("console-created");
    WebElement partitions = browser.driver().findElement(By.id("new-topic-partitions"));
    partitions.clear();
    partitions.sendKeys("2");
    browser.driver().findElement(By.id("create-topic")).click();
    // Nothing happens before the confirmation.
    browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-yes")));
    assertThat(admin.listTopics().names().get()).doesNotContain("console-created");
    browser.screenshot("create-topic");
    browser.driver().findElement(By.id("confirm-yes")).click();
    browser.waitText(By.id("topic-name"), "console-created");
    Map<String, TopicDescription> described =
        admin.describeTopics(List.of("console-created")).allTopicNames().get();
    assertThat(described.get("console-created").partitions()).hasSize(2);
  }

  @Test
  @Order(6)
  void aChangeWithoutTheConsoleHeaderIsRefused() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/console/api/topics"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"console-forged\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(403);
    assertThat(admin.listTopics().names().get()).doesNotContain("console-forged");
    // The page's files: content types and revalidation.
    HttpResponse<String> page =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/console/app.js")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type"))
        .hasValue("text/javascript; charset=utf-8");
    assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");
    String etag = page.headers().firstValue("ETag").orElseThrow();
    HttpResponse<String> again =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/console/app.js"))
                    .header("If-None-Match", etag)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(again.statusCode()).isEqualTo(304);
  }

  private static String ids(List<Node> nodes) {
    return String.join(", ", nodes.stream().map(n -> Integer.toString(n.id())).toList());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
