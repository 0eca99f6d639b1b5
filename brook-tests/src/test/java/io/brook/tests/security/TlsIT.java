package io.brook.tests.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrook;
import io.brook.testkit.TestCertificates;
import io.brook.testkit.TestCertificates.Identity;
import io.brook.testkit.TestCertificates.StoreType;
import io.brook.tests.ChildProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS listeners against real kafka-clients: every store format, client authentication, a plaintext
 * client refused, large fetches intact through the chunked (non-zero-copy) path, and a keystore
 * rotated without a restart.
 */
class TlsIT {
  @TempDir static Path certDir;
  private static TestCertificates certs;
  private static Identity client;

  /**
   * One node with a PKCS12 keystore for the tests that need nothing else of the server (each on its
   * own topics): started once, not once per test.
   */
  private static EmbeddedBrook pkcs12;

  @BeforeAll
  static void certificates() {
    certs = TestCertificates.create(certDir);
    client = certs.issue("client", StoreType.PKCS12);
    pkcs12 = brook(serverTls(StoreType.PKCS12));
  }

  @AfterAll
  static void stopSharedNode() {
    if (pkcs12 != null) {
      pkcs12.close();
    }
  }

  /** A node with a PLAINTEXT and an SSL listener, the SSL one configured by {@code tls}. */
  private static EmbeddedBrook brook(Map<String, String> tls) {
    EmbeddedBrook.Builder builder =
        EmbeddedBrook.builder()
            .config(
                "listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,CONTROLLER://127.0.0.1:0")
            .config("advertised.listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0")
            .config(
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,SSL:SSL,CONTROLLER:PLAINTEXT");
    tls.forEach(builder::config);
    return builder.start();
  }

  private static Map<String, String> serverTls(StoreType type) {
    Map<String, String> tls = new LinkedHashMap<>(certs.issue("broker", type).keystoreConfig());
    tls.putAll(certs.truststoreConfig(type));
    return tls;
  }

  /** kafka-clients over SSL trusting the test authority; with {@code identity}'s certificate. */
  private static Map<String, Object> clientTls(Identity identity) {
    Map<String, Object> props = new LinkedHashMap<>();
    props.put("security.protocol", "SSL");
    props.putAll(certs.truststoreConfig(StoreType.PEM));
    if (identity != null) {
      props.putAll(identity.keystoreConfig());
    }
    return props;
  }

  private static String[] pairs(Map<String, Object> props) {
    List<String> out = new ArrayList<>();
    props.forEach(
        (k, v) -> {
          out.add(k);
          out.add(v.toString());
        });
    return out.toArray(String[]::new);
  }

  private static void createTopic(String bootstrap, Map<String, Object> tls, String topic)
      throws ExecutionException, InterruptedException {
    Map<String, Object> props = new LinkedHashMap<>(tls);
    props.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(props)) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      assertThat(admin.describeCluster().nodes().get()).hasSize(1);
    }
  }

  private static KafkaProducer<byte[], byte[]> producer(
      String bootstrap, Map<String, Object> tls, String... more) {
    Map<String, Object> props = new LinkedHashMap<>(tls);
    props.put("bootstrap.servers", bootstrap);
    for (int i = 0; i < more.length; i += 2) {
      props.put(more[i], more[i + 1]);
    }
    return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static List<byte[]> readValues(
      String bootstrap, Map<String, Object> tls, String topic, int count) {
    Map<String, Object> props = new LinkedHashMap<>(tls);
    props.put("bootstrap.servers", bootstrap);
    props.put("max.partition.fetch.bytes", Integer.toString(16 * 1024 * 1024));
    props.put("fetch.max.bytes", Integer.toString(32 * 1024 * 1024));
    List<byte[]> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
      while (values.size() < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          values.add(r.value());
        }
      }
    }
    return values;
  }

  @ParameterizedTest
  @EnumSource(StoreType.class)
  void producerConsumerAndAdminWorkOverSsl(StoreType type) throws Exception {
    if (type == StoreType.PKCS12) {
      producerConsumerAndAdminWorkOverSsl(pkcs12, type);
      return;
    }
    try (EmbeddedBrook brook = brook(serverTls(type))) {
      producerConsumerAndAdminWorkOverSsl(brook, type);
    }
  }

  private static void producerConsumerAndAdminWorkOverSsl(EmbeddedBrook brook, StoreType type)
      throws Exception {
    String bootstrap = brook.bootstrapServers("SSL");
    Map<String, Object> tls = clientTls(null);
    createTopic(bootstrap, tls, "tls-" + type);
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap, tls)) {
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>("tls-" + type, ("v" + i).getBytes())).get();
      }
    }
    List<byte[]> values = readValues(bootstrap, tls, "tls-" + type, 10);
    assertThat(values)
        .extracting(String::new)
        .containsExactly("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
  }

  @Test
  void inlinePemKeystoreWorks() throws Exception {
    Map<String, String> tls =
        new LinkedHashMap<>(certs.issue("inline", StoreType.PEM).inlinePemConfig());
    tls.putAll(certs.truststoreConfig(StoreType.PEM));
    try (EmbeddedBrook brook = brook(tls)) {
      createTopic(brook.bootstrapServers("SSL"), clientTls(null), "inline");
    }
  }

  @Test
  void requiredClientAuthRejectsAClientWithoutACertificateAndAcceptsOneWithIt() throws Exception {
    Map<String, String> tls = serverTls(StoreType.JKS);
    tls.put("listener.name.ssl.ssl.client.auth", "required");
    try (EmbeddedBrook brook = brook(tls)) {
      String bootstrap = brook.bootstrapServers("SSL");
      Map<String, Object> anonymous = new LinkedHashMap<>(clientTls(null));
      anonymous.put("bootstrap.servers", bootstrap);
      anonymous.put("default.api.timeout.ms", "5000");
      anonymous.put("request.timeout.ms", "3000");
      try (Admin admin = Admin.create(anonymous)) {
        assertThatThrownBy(() -> admin.describeCluster().nodes().get(10, TimeUnit.SECONDS))
            .hasRootCauseInstanceOf(javax.net.ssl.SSLHandshakeException.class);
      }
      createTopic(bootstrap, clientTls(client), "mutual");
    }
  }

  @Test
  void aPlaintextClientOnTheSslPortFails() throws Exception {
    Map<String, Object> props = new LinkedHashMap<>();
    props.put("bootstrap.servers", pkcs12.bootstrapServers("SSL"));
    // It never gets an answer: how long it waits for one is all these two decide.
    props.put("default.api.timeout.ms", "2000");
    props.put("request.timeout.ms", "1000");
    try (Admin admin = Admin.create(props)) {
      assertThatThrownBy(() -> admin.describeCluster().nodes().get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class);
    }
    // The node is fine for clients that do speak TLS.
    createTopic(pkcs12.bootstrapServers("SSL"), clientTls(null), "after-plaintext");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "lz4", "zstd"})
  void largeFetchesAreByteIdenticalOverTls(String compression) throws Exception {
    String bootstrap = pkcs12.bootstrapServers("SSL");
    Map<String, Object> tls = clientTls(null);
    String topic = "large-" + compression;
    createTopic(bootstrap, tls, topic);
    Random random = new Random(42);
    List<byte[]> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer =
        producer(
            bootstrap,
            tls,
            "compression.type",
            compression,
            "batch.size",
            Integer.toString(1024 * 1024),
            "linger.ms",
            "50",
            "max.request.size",
            Integer.toString(8 * 1024 * 1024))) {
      // 8 MiB in 256 KiB values, half random (incompressible), half repetitive.
      for (int i = 0; i < 32; i++) {
        byte[] value = new byte[256 * 1024];
        if (i % 2 == 0) {
          random.nextBytes(value);
        } else {
          Arrays.fill(value, (byte) i);
        }
        sent.add(value);
        producer.send(new ProducerRecord<>(topic, value));
      }
      producer.flush();
    }
    List<byte[]> received = readValues(bootstrap, tls, topic, sent.size());
    assertThat(received).hasSize(sent.size());
    for (int i = 0; i < sent.size(); i++) {
      assertThat(received.get(i)).as("value " + i).isEqualTo(sent.get(i));
    }
  }

  @Test
  void aRotatedKeystoreServesNewConnectionsWithTheNewCertificate() throws Exception {
    Identity first = certs.issue("first", StoreType.PKCS12);
    Identity second = certs.issue("second", StoreType.PKCS12);
    Path keystore = certDir.resolve("rotating.p12");
    Files.copy(first.keystore(), keystore);
    Map<String, String> tls = new LinkedHashMap<>(first.keystoreConfig());
    tls.put("ssl.keystore.location", keystore.toString());
    tls.put("brook.ssl.store.reload.interval.ms", "200");
    try (EmbeddedBrook brook = brook(tls)) {
      int port = Integer.parseInt(brook.bootstrapServers("SSL").split(":")[1]);
      assertThat(servedSubject(port)).isEqualTo("CN=first,O=Brook");

      Path staged = certDir.resolve("rotating.p12.new");
      Files.copy(second.keystore(), staged);
      Files.move(
          staged, keystore, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      // A file replaced within the same second may keep its modification time: make it differ.
      Files.setLastModifiedTime(
          keystore,
          java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 2_000));

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> servedSubject(port).equals("CN=second,O=Brook"));
      createTopic(brook.bootstrapServers("SSL"), clientTls(null), "rotated");
    }
  }

  @Test
  void kcatProducesAndConsumesOverSsl() throws Exception {
    try (EmbeddedBrook brook = brook(serverTls(StoreType.PEM))) {
      String bootstrap = brook.bootstrapServers("SSL");
      createTopic(bootstrap, clientTls(null), "kcat-tls");
      List<String> tls =
          List.of("-X", "security.protocol=ssl", "-X", "ssl.ca.location=" + certs.caPem());
      List<String> produce =
          new ArrayList<>(List.of("kcat", "-P", "-b", bootstrap, "-t", "kcat-tls"));
      produce.addAll(tls);
      ChildProcess.Result produced =
          ChildProcess.run(produce, "one\ntwo\nthree\n", Duration.ofSeconds(60));
      assertThat(produced.exitCode()).as(produced.describe()).isZero();
      List<String> consume =
          new ArrayList<>(
              List.of(
                  "kcat", "-C", "-b", bootstrap, "-t", "kcat-tls", "-o", "beginning", "-e", "-q"));
      consume.addAll(tls);
      ChildProcess.Result consumed = ChildProcess.run(consume, "", Duration.ofSeconds(60));
      assertThat(consumed.exitCode()).as(consumed.describe()).isZero();
      assertThat(consumed.stdout().lines()).containsExactly("one", "two", "three");
      assertThat(readValues(bootstrap, clientTls(null), "kcat-tls", 3))
          .extracting(String::new)
          .containsExactly("one", "two", "three");
    }
  }

  /** The subject of the certificate a new TLS connection to {@code port} is served. */
  private static String servedSubject(int port) throws Exception {
    X509TrustManager trustAll =
        new X509TrustManager() {
          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        };
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {trustAll}, new SecureRandom());
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0])
          .getSubjectX500Principal()
          .getName();
    }
  }
}
