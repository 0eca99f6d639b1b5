package io.brook.tests.cluster;

import static io.brook.tests.cluster.ReplicationIT.consumeAll;
import static io.brook.tests.cluster.ReplicationIT.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.TestCertificates;
import io.brook.testkit.TestCertificates.Identity;
import io.brook.testkit.TestCertificates.StoreType;
import io.brook.tests.cluster.ClusterHarness.Node;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real node processes whose every connection is mutual TLS: clients and replication on the
 * listener named PLAINTEXT mapped to SSL with client certificates required, the Raft quorum on an
 * SSL CONTROLLER listener. A leader killed with SIGKILL loses nothing that was acknowledged.
 */
class TlsClusterIT {
  @TempDir static Path dir;
  private static ClusterHarness cluster;
  private static TestCertificates certs;
  private static Identity client;
  private static Map<Integer, Identity> nodes;

  @BeforeAll
  static void start() throws Exception {
    certs = TestCertificates.create(dir.resolve("certs"));
    client = certs.issue("client", StoreType.PKCS12);
    nodes = new HashMap<>();
    for (int id = 1; id <= 3; id++) {
      nodes.put(id, certs.issue("node-" + id, id == 2 ? StoreType.JKS : StoreType.PKCS12));
    }
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("listener.security.protocol.map", "PLAINTEXT:SSL,CONTROLLER:SSL");
    extra.put("ssl.client.auth", "required");
    extra.put("brook.ssl.store.reload.interval.ms", "200");
    extra.putAll(certs.truststoreConfig(StoreType.PKCS12));
    cluster = ClusterHarness.start(dir, 3, extra, id -> nodes.get(id).keystoreConfig());
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Properties tls(boolean withCertificate) {
    Properties props = new Properties();
    props.put("bootstrap.servers", cluster.bootstrapServers());
    props.put("security.protocol", "SSL");
    props.putAll(certs.truststoreConfig(StoreType.PEM));
    if (withCertificate) {
      props.putAll(client.keystoreConfig());
    }
    return props;
  }

  private static Admin admin() {
    Properties props = tls(true);
    props.put("request.timeout.ms", "10000");
    props.put("default.api.timeout.ms", "30000");
    return Admin.create(props);
  }

  @Test
  void acknowledgedRecordsSurviveTheLeadersDeathOverMutualTls() throws Exception {
    String topic = "tls-payments";
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, 2, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get(60, TimeUnit.SECONDS);
    }
    Map<Integer, List<String>> acked = new HashMap<>();
    Properties producerProps = tls(true);
    producerProps.put("acks", "all");
    producerProps.put("enable.idempotence", "true");
    producerProps.put("linger.ms", "5");
    producerProps.put("request.timeout.ms", "5000");
    producerProps.put("delivery.timeout.ms", "90000");
    producerProps.put("reconnect.backoff.max.ms", "100");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer())) {
      send(producer, topic, 0, 1_000, acked);
      Node victim = cluster.node(leaderOf(topic, 0));
      victim.kill();
      send(producer, topic, 1_000, 1_000, acked);
      victim.restart();
      send(producer, topic, 2_000, 500, acked);
    }

    Map<Integer, List<String>> consumed = consumeAll(tls(true), topic, 2, 2_500);
    for (int p = 0; p < 2; p++) {
      assertThat(consumed.get(p)).as("partition %d", p).isEqualTo(acked.get(p));
    }
    // The restarted node caught up over TLS: replication works in every direction.
    await("every ISR back to three replicas")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              try (Admin admin = admin()) {
                return admin
                    .describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .stream()
                    .allMatch(p -> p.isr().size() == 3);
              }
            });
  }

  @Test
  void theQuorumPortSpeaksTlsWithTheNodesCertificate() throws Exception {
    assertThat(quorumCertificate(1)).isEqualTo("CN=node-1,O=Brook");
  }

  @Test
  void aRotatedKeystoreServesTheNextQuorumConnectionWithoutARestart() throws Exception {
    // Given: a new certificate for node 3, written next to its keystore and renamed over it
    Identity rotated = certs.issue("node-3-rotated", StoreType.PKCS12, "CN=node-3-rotated,O=Brook");
    Path keystore = nodes.get(3).keystore();
    Files.move(
        rotated.keystore(),
        keystore,
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);

    // Then: the Raft quorum's gRPC port presents it to new connections
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> quorumCertificate(3).equals("CN=node-3-rotated,O=Brook"));
  }

  /** The subject of the certificate a node's quorum (controller) port presents. */
  private static String quorumCertificate(int nodeId) throws Exception {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(client.keystore())) {
      keys.load(in, TestCertificates.PASSWORD.toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, TestCertificates.PASSWORD.toCharArray());
    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(certs.truststore(StoreType.PKCS12))) {
      trust.load(in, TestCertificates.PASSWORD.toCharArray());
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    Node node = cluster.node(nodeId);
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", node.controllerPort())) {
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0])
          .getSubjectX500Principal()
          .getName();
    }
  }

  @Test
  void aClientWithoutACertificateIsRefused() {
    Properties props = tls(false);
    props.put("request.timeout.ms", "3000");
    props.put("default.api.timeout.ms", "5000");
    try (Admin admin = Admin.create(props)) {
      assertThatThrownBy(() -> admin.describeCluster().nodes().get(10, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(javax.net.ssl.SSLHandshakeException.class);
    }
  }

  private static int leaderOf(String topic, int partition) throws Exception {
    try (Admin admin = admin()) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .get(partition)
          .leader()
          .id();
    }
  }
}
