package io.brook.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testports.PortAllocator;
import io.brook.tests.TestClients;
import io.brook.tests.cluster.ClusterHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * The console of a three-node process cluster in headless Chromium: the page of broker 1 shows a
 * group and a transaction another broker coordinates, with the group's lag, and resets that group's
 * offsets there; every broker listed active, then a SIGKILLed broker shown fenced once the
 * controller fences it, on a surviving node's page.
 */
@Timeout(180)
class ConsoleClusterIT {
  @TempDir Path dir;

  @Test
  void aBrokersPageShowsWhatAnotherBrokerCoordinates() throws Exception {
    Map<Integer, Integer> adminPorts = adminPorts();
    try (ClusterHarness cluster = start(adminPorts);
        Browser browser = new Browser(dir.resolve("chromium"));
        Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
      String base = "http://127.0.0.1:" + adminPorts.get(1) + "/console/";
      admin.createTopics(List.of(new NewTopic("cluster-lag", 3, (short) 3))).all().get();
      TopicPartition tp = new TopicPartition("cluster-lag", 0);
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(cluster.bootstrapServers())) {
        for (int i = 0; i < 10; i++) {
          producer.send(new ProducerRecord<>("cluster-lag", 0, null, new byte[] {(byte) i})).get();
        }
      }
      // Creates the offsets topic: its leaders then say which broker coordinates which group.
      admin
          .alterConsumerGroupOffsets("cluster-probe", Map.of(tp, new OffsetAndMetadata(0)))
          .all()
          .get();
      Map.Entry<String, Integer> group = coordinatedElsewhere(admin, "__consumer_offsets", "g-");
      admin
          .alterConsumerGroupOffsets(group.getKey(), Map.of(tp, new OffsetAndMetadata(4)))
          .all()
          .get();

      // The list and the group's page on broker 1, from the group's coordinator.
      browser.open(base + "#/groups", "groups");
      String row = "#groups tr[data-group='" + group.getKey() + "']";
      browser.waitText(By.cssSelector(row + " td.lag"), "6");
      browser.driver().findElement(By.linkText(group.getKey())).click();
      browser.rendered("groups");
      browser.waitText(By.cssSelector("#group-coordinator .value"), group.getValue().toString());
      browser.waitText(
          By.cssSelector("#group-partitions tr[data-tp='cluster-lag-0'] td.committed"), "4");
      browser.waitText(By.cssSelector("#group-partitions tr[data-tp='cluster-lag-0'] td.lag"), "6");

      // Its offsets reset from broker 1: the commit goes to the coordinator.
      new Select(browser.driver().findElement(By.id("reset-to"))).selectByValue("offset");
      browser.driver().findElement(By.id("reset-offset")).sendKeys("7");
      browser.driver().findElement(By.id("reset-preview-button")).click();
      browser.waitText(By.cssSelector("#reset-rows tr[data-tp='cluster-lag-0'] td.new"), "7");
      assertThat(
              browser
                  .driver()
                  .findElement(By.cssSelector("#reset-rows tr[data-tp='cluster-lag-0'] td.current"))
                  .getText())
          .isEqualTo("4");
      browser.driver().findElement(By.id("reset-apply")).click();
      browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-yes")));
      browser.driver().findElement(By.id("confirm-yes")).click();
      browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("reset-done")));
      assertThat(
              admin
                  .listConsumerGroupOffsets(group.getKey())
                  .partitionsToOffsetAndMetadata()
                  .get()
                  .get(tp)
                  .offset())
          .isEqualTo(7);

      // An open transaction another broker coordinates, on broker 1's transactions page.
      try (KafkaProducer<byte[], byte[]> probe =
          TestClients.producer(cluster.bootstrapServers(), "transactional.id", "cluster-probe")) {
        probe.initTransactions(); // creates the transaction state topic
      }
      Map.Entry<String, Integer> txn = coordinatedElsewhere(admin, "__transaction_state", "t-");
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(cluster.bootstrapServers(), "transactional.id", txn.getKey())) {
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>("cluster-lag", 2, null, new byte[] {1})).get();
        browser.open(base + "#/transactions", "transactions");
        String txnRow = "#transactions tr[data-txn='" + txn.getKey() + "']";
        browser.waitText(By.cssSelector(txnRow + " td.partitions"), "cluster-lag-2");
        assertThat(
                browser.driver().findElement(By.cssSelector(txnRow + " td.coordinator")).getText())
            .isEqualTo(txn.getValue().toString());
        assertThat(browser.driver().findElement(By.cssSelector(txnRow + " td.state")).getText())
            .isEqualTo("Ongoing");
        producer.abortTransaction();
      }
    }
  }

  /**
   * A key (group or transactional id) whose coordinator is not broker 1: the leader of the internal
   * topic's partition the key hashes to, as Kafka places them.
   */
  static Map.Entry<String, Integer> coordinatedElsewhere(
      Admin admin, String internalTopic, String prefix) throws Exception {
    TopicDescription topic =
        admin.describeTopics(List.of(internalTopic)).allTopicNames().get().get(internalTopic);
    int count = topic.partitions().size();
    for (int i = 0; ; i++) {
      String key = prefix + i;
      Node leader = topic.partitions().get(Utils.abs(key.hashCode()) % count).leader();
      if (leader != null && leader.id() != 1) {
        return Map.entry(key, leader.id());
      }
    }
  }

  /** Three combined nodes, each with its admin listener (and console) on its port. */
  private ClusterHarness start(Map<Integer, Integer> adminPorts) throws Exception {
    return ClusterHarness.start(
        Files.createDirectories(dir.resolve("cluster")),
        3,
        Map.of(),
        id -> Map.of("brook.admin.listener", "http://127.0.0.1:" + adminPorts.get(id)));
  }

  private static Map<Integer, Integer> adminPorts() {
    Map<Integer, Integer> adminPorts = new HashMap<>();
    for (int id = 1; id <= 3; id++) {
      adminPorts.put(id, PortAllocator.shared().allocate());
    }
    return adminPorts;
  }

  @Test
  void aKilledBrokerIsShownFenced() throws Exception {
    Map<Integer, Integer> adminPorts = adminPorts();
    try (ClusterHarness cluster = start(adminPorts);
        Browser browser = new Browser(dir.resolve("chromium"))) {
      browser.open("http://127.0.0.1:" + adminPorts.get(1) + "/console/", "overview");
      for (int id = 1; id <= 3; id++) {
        browser.waitText(state(id), "active");
      }
      cluster.node(3).kill();
      // The page refreshes itself; the controller fences a silent broker within seconds.
      browser.waitText(state(3), "fenced", Duration.ofSeconds(60));
      assertThat(browser.driver().findElement(state(1)).getText()).isEqualTo("active");
      assertThat(browser.driver().findElement(state(2)).getText()).isEqualTo("active");
      browser.screenshot("fenced");
    }
  }

  private static By state(int id) {
    return By.cssSelector("#brokers tr[data-broker-id='" + id + "'] td.state");
  }
}
