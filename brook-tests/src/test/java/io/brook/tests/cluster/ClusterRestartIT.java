package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static io.brook.tests.cluster.ClusterClients.awaitSameEverywhere;
import static io.brook.tests.cluster.ClusterClients.producer;
import static io.brook.tests.cluster.ControllerFailoverIT.brokers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.tests.cluster.ClusterHarness.Node;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every node of a three-node cluster is killed at once and started again. */
class ClusterRestartIT {
  @TempDir Path dir;
  private ClusterHarness cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void metadataAndDataSurviveAFullClusterRestart() throws Exception {
    // Given topics with configs, and records in single-replica partitions (whose leader cannot
    // move, so the data stays served while followers do not replicate yet)
    cluster = ClusterHarness.start(dir, 3, Map.of());
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin
          .createTopics(
              List.of(
                  new NewTopic("replicated", 6, (short) 3)
                      .configs(Map.of("retention.ms", "3600000")),
                  new NewTopic("single", 3, (short) 1)))
          .all()
          .get();
    }
    try (KafkaProducer<String, String> producer = producer(cluster.bootstrapServers())) {
      for (int i = 0; i < 30; i++) {
        producer.send(new ProducerRecord<>("single", i % 3, "k" + i, "v" + i)).get();
      }
    }
    ServedMetadata before =
        awaitSameEverywhere(
            brokers(cluster.nodes()),
            Duration.ofSeconds(10),
            m -> {
              assertThat(m.brokers()).containsOnlyKeys(1, 2, 3);
              assertThat(m.topics()).contains("replicated", "single");
            });

    // When every node is killed and started again
    for (Node node : cluster.nodes()) {
      node.kill();
    }
    List<CompletableFuture<Void>> restarts = new ArrayList<>();
    for (Node node : cluster.nodes()) {
      restarts.add(CompletableFuture.runAsync(() -> restart(node)));
    }
    CompletableFuture.allOf(restarts.toArray(CompletableFuture[]::new)).join();

    // Then the same topics, partitions, replicas and ids are served by every broker
    ServedMetadata after =
        awaitSameEverywhere(
            brokers(cluster.nodes()),
            Duration.ofSeconds(20),
            m -> {
              assertThat(m.brokers()).isEqualTo(before.brokers());
              assertThat(withoutLeaders(m)).isEqualTo(withoutLeaders(before));
            });
    assertThat(after.clusterId()).isEqualTo(before.clusterId());
    try (Admin admin = admin(cluster.bootstrapServers())) {
      ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "replicated");
      Config config = admin.describeConfigs(Set.of(topic)).all().get().get(topic);
      assertThat(config.get("retention.ms").value()).isEqualTo("3600000");
    }

    // And the records are all still there
    assertThat(consumeAll("single", 3)).hasSize(30);
  }

  @Test
  void aBrokerRestartedWithoutAQuorumLeadsOnlyInEpochsGivenToItsNewProcess() throws Exception {
    // Given partitions led by broker 2, with records
    cluster = ClusterHarness.start(dir, 3, Map.of());
    try (Admin admin = admin(cluster.bootstrapServers())) {
      admin
          .createTopics(
              List.of(new NewTopic("led", Map.of(0, List.of(2, 1, 3), 1, List.of(2, 3, 1)))))
          .all()
          .get();
    }
    try (KafkaProducer<String, String> producer = producer(cluster.bootstrapServers())) {
      for (int i = 0; i < 30; i++) {
        producer.send(new ProducerRecord<>("led", i % 2, "k" + i, "v" + i)).get();
      }
    }
    ServedMetadata before =
        awaitSameEverywhere(
            brokers(cluster.nodes()),
            Duration.ofSeconds(10),
            m -> {
              assertThat(m.partitions().get("led-0")).startsWith("leader=2 ");
              assertThat(m.partitions().get("led-1")).startsWith("leader=2 ");
            });

    // When brokers 2 and 3 are killed, taking the controller quorum with them, and broker 2 starts
    // again alone: its metadata still names it leader in the epochs its last process held, and
    // nothing can change that until the quorum is back
    Node restarted = cluster.node(2);
    restarted.kill();
    cluster.node(3).kill();
    restarted.launch();
    await("broker 2 asks to register")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> restarted.log().contains("Broker registering brokerId=2"));

    // Then it took no leadership (nor followed anyone) on that metadata: it acts only on metadata
    // holding its own new registration, which the controller writes together with new leaders
    // and epochs for what the last process led
    assertThat(restarted.log())
        .doesNotContain("Became leader")
        .doesNotContain("Became follower")
        .doesNotContain("Metadata holds this broker's registration");

    // And once the quorum is back, it leads again only in later epochs, with every record kept
    cluster.node(3).launch();
    restarted.awaitReady();
    cluster.node(3).awaitReady();
    awaitSameEverywhere(
        brokers(cluster.nodes()),
        Duration.ofSeconds(30),
        m -> {
          assertThat(m.partitions().get("led-0")).containsPattern("isr=\\[\\d, \\d, \\d]");
          assertThat(m.partitions().get("led-1")).containsPattern("isr=\\[\\d, \\d, \\d]");
        });
    try (Admin admin = admin(cluster.bootstrapServers())) {
      // Those it did not keep through the restart, it takes back as preferred leader.
      admin
          .electLeaders(
              ElectionType.PREFERRED,
              Set.of(new TopicPartition("led", 0), new TopicPartition("led", 1)))
          .partitions()
          .get();
    }
    awaitSameEverywhere(
        brokers(cluster.nodes()),
        Duration.ofSeconds(30),
        m -> {
          assertThat(m.partitions().get("led-0")).startsWith("leader=2 ");
          assertThat(m.partitions().get("led-1")).startsWith("leader=2 ");
        });
    String log = restarted.log();
    int opened = log.indexOf("Metadata holds this broker's registration, acting on it brokerId=2");
    assertThat(opened).as("the log says when the broker began to act on metadata").isNotNegative();
    assertThat(log.substring(0, opened)).doesNotContain("Became leader", "Became follower");
    for (String partition : List.of("led-0", "led-1")) {
      int epochBefore = epoch(before.partitions().get(partition));
      Matcher led =
          Pattern.compile(
                  "Became leader \\{[^}]*leaderEpoch=(\\d+),[^}]*topicPartition=" + partition + "}")
              .matcher(restarted.log());
      List<Integer> epochs = new ArrayList<>();
      while (led.find()) {
        epochs.add(Integer.parseInt(led.group(1)));
      }
      assertThat(epochs)
          .as("epochs in which the restarted broker led %s (before: %s)", partition, epochBefore)
          .isNotEmpty()
          .allMatch(epoch -> epoch > epochBefore);
    }
    assertThat(consumeAll("led", 2)).hasSize(30);
  }

  private static int epoch(String partitionState) {
    Matcher m = Pattern.compile("epoch=(-?\\d+)").matcher(partitionState);
    assertThat(m.find()).as("epoch in %s", partitionState).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static void restart(Node node) {
    try {
      node.restart();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Replicas and topic ids; leaders and epochs change when the nodes come back. */
  private static List<String> withoutLeaders(ServedMetadata metadata) {
    return metadata.partitions().entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue().replaceAll("leader=-?\\d+ epoch=-?\\d+ ", ""))
        .map(s -> s.replaceAll(" isr=\\[[^]]*]", ""))
        .toList();
  }

  private List<ConsumerRecord<String, String>> consumeAll(String topic, int partitions) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (records.size() < 30 && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }
}
