package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.EmbeddedBrookCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three nodes whose only broker listener, also the inter-broker listener, is SASL_PLAINTEXT with
 * SCRAM-SHA-512: replica fetchers and every other broker-to-broker call authenticate with the user
 * of the listener's JAAS config, a bootstrap credential each node checks from its own metadata.
 */
@Timeout(240)
class SaslClusterIT {
  private static final String[] CLIENT_SASL = {
    "security.protocol", "SASL_PLAINTEXT",
    "sasl.mechanism", "SCRAM-SHA-512",
    "sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\""
            + " password=\"broker-secret\";",
    "acks", "all"
  };

  @Test
  void replicasFetchAcrossASaslInterBrokerListener() throws Exception {
    try (EmbeddedBrookCluster cluster =
        EmbeddedBrookCluster.builder()
            .nodes(3)
            // The harness's client listener is named PLAINTEXT; here it speaks SASL_PLAINTEXT.
            .config(
                "listener.security.protocol.map", "PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT")
            .config("inter.broker.listener.name", "PLAINTEXT")
            .config("sasl.enabled.mechanisms", "SCRAM-SHA-512")
            .config("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512")
            .config(
                "listener.name.plaintext.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required"
                    + " username=\"broker\" password=\"broker-secret\";")
            .config(
                "brook.sasl.scram.bootstrap.credentials",
                "SCRAM-SHA-512=[name=broker,password=broker-secret]")
            .config("min.insync.replicas", "3")
            .start()) {
      String topic = "sasl-replicated";
      Map<String, Object> adminConfig = new HashMap<>();
      adminConfig.put("bootstrap.servers", cluster.bootstrapServers());
      for (int i = 0; i < CLIENT_SASL.length - 2; i += 2) {
        adminConfig.put(CLIENT_SASL[i], CLIENT_SASL[i + 1]);
      }
      int leader;
      try (Admin admin = Admin.create(adminConfig)) {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3))).all().get();
        // acks=all with min.insync.replicas=3: every record is on all three nodes when acked.
        try (KafkaProducer<byte[], byte[]> producer =
            TestClients.producer(cluster.bootstrapServers(), CLIENT_SASL)) {
          for (int i = 0; i < 100; i++) {
            producer.send(new ProducerRecord<>(topic, ("r" + i).getBytes())).get();
          }
        }
        TopicDescription description =
            admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        leader = description.partitions().get(0).leader().id();
        assertThat(description.partitions().get(0).isr()).hasSize(3);
      }

      cluster.stop(leader);
      String others =
          cluster.nodeIds().stream()
              .filter(id -> id != leader)
              .map(cluster::bootstrapServers)
              .collect(Collectors.joining(","));
      try (KafkaConsumer<byte[], byte[]> consumer =
          TestClients.consumer(
              others,
              CLIENT_SASL[0],
              CLIENT_SASL[1],
              CLIENT_SASL[2],
              CLIENT_SASL[3],
              CLIENT_SASL[4],
              CLIENT_SASL[5])) {
        List<TopicPartition> partitions = TestClients.partitions(topic, 1);
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        int read = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (read < 100 && System.nanoTime() < deadline) {
          read += consumer.poll(Duration.ofMillis(500)).count();
        }
        assertThat(read).isEqualTo(100);
      }
    }
  }
}
