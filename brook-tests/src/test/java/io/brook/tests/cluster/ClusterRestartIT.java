package io.brook.tests.cluster;

import static io.brook.tests.cluster.ClusterClients.admin;
import static io.brook.tests.cluster.ClusterClients.awaitSameEverywhere;
import static io.brook.tests.cluster.ClusterClients.producer;
import static io.brook.tests.cluster.ControllerFailoverIT.brokers;
import static org.assertj.core.api.Assertions.assertThat;

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
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
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
