package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.EmbeddedBrookCluster;
import io.brook.testkit.TestCertificates;
import io.brook.testkit.TestCertificates.StoreType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three nodes whose only broker listener, also the inter-broker listener, is SASL_PLAINTEXT or
 * SASL_SSL with SCRAM-SHA-512: replica fetchers and every other broker-to-broker call authenticate
 * with the user of the listener's JAAS config, a bootstrap credential each node checks from its own
 * metadata; on SASL_SSL inside a TLS connection whose certificate the fetcher checks.
 */
@Timeout(240)
class SaslClusterIT {
  @TempDir static Path certDir;

  /** kafka-clients settings for {@code protocol} as the broker user (trusting the test CA). */
  private static String[] clientSasl(String protocol, TestCertificates certs) {
    List<String> pairs =
        new ArrayList<>(
            List.of(
                "security.protocol",
                protocol,
                "sasl.mechanism",
                "SCRAM-SHA-512",
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required"
                    + " username=\"broker\" password=\"broker-secret\";"));
    if (certs != null) {
      certs.truststoreConfig(StoreType.PEM).forEach((k, v) -> pairs.addAll(List.of(k, v)));
    }
    return pairs.toArray(String[]::new);
  }

  @ParameterizedTest
  @ValueSource(strings = {"SASL_PLAINTEXT", "SASL_SSL"})
  void replicasFetchAcrossASaslInterBrokerListener(String protocol) throws Exception {
    TestCertificates certs =
        protocol.equals("SASL_SSL") ? TestCertificates.create(certDir.resolve(protocol)) : null;
    String[] clientSasl = clientSasl(protocol, certs);
    EmbeddedBrookCluster.Builder builder =
        EmbeddedBrookCluster.builder()
            .nodes(3)
            // The harness's client listener is named PLAINTEXT; here it speaks SASL.
            .config(
                "listener.security.protocol.map", "PLAINTEXT:" + protocol + ",CONTROLLER:PLAINTEXT")
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
            .config("min.insync.replicas", "3");
    if (certs != null) {
      // One certificate (for 127.0.0.1) for every node; fetchers check it against the CA.
      certs.issue("broker", StoreType.PKCS12).keystoreConfig().forEach(builder::config);
      certs.truststoreConfig(StoreType.PKCS12).forEach(builder::config);
    }
    try (EmbeddedBrookCluster cluster = builder.start()) {
      String topic = "sasl-replicated";
      Map<String, Object> adminConfig = new HashMap<>();
      adminConfig.put("bootstrap.servers", cluster.bootstrapServers());
      for (int i = 0; i < clientSasl.length; i += 2) {
        adminConfig.put(clientSasl[i], clientSasl[i + 1]);
      }
      int leader;
      try (Admin admin = Admin.create(adminConfig)) {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3))).all().get();
        // acks=all with min.insync.replicas=3: every record is on all three nodes when acked.
        try (KafkaProducer<byte[], byte[]> producer =
            TestClients.producer(cluster.bootstrapServers(), withAcksAll(clientSasl))) {
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
      try (KafkaConsumer<byte[], byte[]> consumer = TestClients.consumer(others, clientSasl)) {
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

  private static String[] withAcksAll(String[] pairs) {
    String[] out = java.util.Arrays.copyOf(pairs, pairs.length + 2);
    out[pairs.length] = "acks";
    out[pairs.length + 1] = "all";
    return out;
  }
}
