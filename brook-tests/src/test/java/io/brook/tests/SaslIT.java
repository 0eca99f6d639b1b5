package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.BrookExtension;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL on a SASL_PLAINTEXT listener with real clients: kafka-clients with PLAIN, SCRAM-SHA-256 and
 * SCRAM-SHA-512 (good and bad passwords), Kafka's {@code kafka-configs} adding a SCRAM user who
 * then connects, kcat (librdkafka 2.0, which repeats the client nonce) with SCRAM-SHA-512, what a
 * connection may do before it authenticates, and the session lifetime (KIP-368).
 */
@Timeout(180)
class SaslIT {
  private static final long REAUTH_MS = 3_000;

  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          TestClients.saslBroker("PLAIN,SCRAM-SHA-256,SCRAM-SHA-512")
              .config(
                  "brook.sasl.scram.bootstrap.credentials",
                  "SCRAM-SHA-256=[name=bob,password=bob-secret]"
                      + " SCRAM-SHA-512=[name=carol,password=carol-secret,iterations=8192]")
              .config("connections.max.reauth.ms", Long.toString(REAUTH_MS)));

  private static String saslBootstrap() {
    return "127.0.0.1:" + BROOK.brook().server().boundPort("SASL_PLAINTEXT");
  }

  private static String[] sasl(String mechanism, String user, String password) {
    String module =
        mechanism.equals("PLAIN")
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    return new String[] {
      "security.protocol", "SASL_PLAINTEXT",
      "sasl.mechanism", mechanism,
      "sasl.jaas.config",
          module + " required username=\"" + user + "\" password=\"" + password + "\";",
      "request.timeout.ms", "10000",
      "delivery.timeout.ms", "20000",
      "max.block.ms", "20000"
    };
  }

  private static Map<String, Object> adminConfig(String... pairs) {
    Map<String, Object> config = new java.util.HashMap<>();
    config.put("bootstrap.servers", saslBootstrap());
    for (int i = 0; i < pairs.length; i += 2) {
      config.put(pairs[i], pairs[i + 1]);
    }
    return config;
  }

  /** Produces one record through the SASL listener and reads it back there. */
  private static void produceAndConsume(String topic, String... saslSettings) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        TestClients.producer(saslBootstrap(), saslSettings)) {
      producer.send(new ProducerRecord<>(topic, "v".getBytes(StandardCharsets.UTF_8))).get();
    }
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(saslBootstrap(), saslSettings)) {
      List<TopicPartition> partitions = TestClients.partitions(topic, 1);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      int read = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (read < 1 && System.nanoTime() < deadline) {
        read += consumer.poll(Duration.ofMillis(500)).count();
      }
      assertThat(read).isEqualTo(1);
    }
  }

  private static Throwable describeClusterFailure(String... saslSettings) {
    try (Admin admin = Admin.create(adminConfig(saslSettings))) {
      admin.describeCluster().clusterId().get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void plainUserFromTheJaasConfigProducesAndConsumes() throws Exception {
    produceAndConsume("sasl-plain", sasl("PLAIN", "alice", "alice-secret"));
  }

  @Test
  void scramSha256AndSha512BootstrapUsersProduceAndConsume() throws Exception {
    produceAndConsume("sasl-scram-256", sasl("SCRAM-SHA-256", "bob", "bob-secret"));
    produceAndConsume("sasl-scram-512", sasl("SCRAM-SHA-512", "carol", "carol-secret"));
  }

  @Test
  void wrongPasswordsAndUnknownUsersFailAuthentication() {
    assertThat(describeClusterFailure(sasl("PLAIN", "alice", "wrong")))
        .isInstanceOf(SaslAuthenticationException.class);
    assertThat(describeClusterFailure(sasl("SCRAM-SHA-256", "bob", "wrong")))
        .isInstanceOf(SaslAuthenticationException.class);
    assertThat(describeClusterFailure(sasl("SCRAM-SHA-512", "carol", "wrong")))
        .isInstanceOf(SaslAuthenticationException.class);
    // bob has no SCRAM-SHA-512 credential
    assertThat(describeClusterFailure(sasl("SCRAM-SHA-512", "bob", "bob-secret")))
        .isInstanceOf(SaslAuthenticationException.class);
    assertThatThrownBy(
            () -> produceAndConsume("sasl-refused", sasl("SCRAM-SHA-256", "mallory", "x")))
        .hasRootCauseInstanceOf(SaslAuthenticationException.class);
  }

  @Test
  void aTenMebibyteFrameBeforeAuthenticationClosesTheConnectionAtOnce() throws Exception {
    try (RawKafkaClient raw =
        new RawKafkaClient("127.0.0.1", BROOK.brook().server().boundPort("SASL_PLAINTEXT"))) {
      raw.setTimeout(Duration.ofSeconds(10));
      // Only the length prefix: a broker that accepted the frame would wait for its body.
      raw.sendBytes(ByteBuffer.allocate(4).putInt(10 * 1024 * 1024).array());
      assertThat(raw.closedByPeer()).isTrue();
    }
  }

  @Test
  void aMetadataRequestBeforeAuthenticationClosesTheConnection() throws Exception {
    try (RawKafkaClient raw =
        new RawKafkaClient("127.0.0.1", BROOK.brook().server().boundPort("SASL_PLAINTEXT"))) {
      raw.setTimeout(Duration.ofSeconds(10));
      raw.sendBytes(RawKafkaClient.frame(new MetadataRequestData(), (short) 12, 1));
      assertThat(raw.closedByPeer()).isTrue();
    }
  }

  @Test
  void kafkaConfigsAddsAScramUserWhoThenConnects(@TempDir Path tmp) throws Exception {
    Path commandConfig = tmp.resolve("admin.properties");
    Files.writeString(
        commandConfig,
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
            + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\"alice\" password=\"alice-secret\";\n");
    assertThat(describeClusterFailure(sasl("SCRAM-SHA-256", "dave", "dave-secret")))
        .isInstanceOf(SaslAuthenticationException.class);

    ChildProcess.Result alter =
        ChildProcess.run(
            ChildProcess.javaCommand(
                "org.apache.kafka.tools.ConfigCommand",
                "--bootstrap-server",
                saslBootstrap(),
                "--command-config",
                commandConfig.toString(),
                "--alter",
                "--add-config",
                "SCRAM-SHA-256=[password=dave-secret]",
                "--entity-type",
                "users",
                "--entity-name",
                "dave"),
            "",
            Duration.ofSeconds(60));
    assertThat(alter.exitCode()).as(alter.describe()).isZero();

    assertThat(describeClusterFailure(sasl("SCRAM-SHA-256", "dave", "dave-secret"))).isNull();
    try (Admin admin = Admin.create(adminConfig(sasl("PLAIN", "alice", "alice-secret")))) {
      assertThat(
              admin
                  .describeUserScramCredentials(List.of("dave"))
                  .all()
                  .get()
                  .get("dave")
                  .credentialInfos())
          .hasSize(1);
    }
  }

  @Test
  void kcatWithScramSha512ProducesAndConsumes() throws Exception {
    Path kcat = ChildProcess.onPath("kcat").orElseThrow(() -> new AssertionError("kcat missing"));
    String topic = "sasl-kcat";
    List<String> common =
        List.of(
            "-b",
            saslBootstrap(),
            "-X",
            "security.protocol=SASL_PLAINTEXT",
            "-X",
            "sasl.mechanisms=SCRAM-SHA-512",
            "-X",
            "sasl.username=carol",
            "-X",
            "sasl.password=carol-secret");
    List<String> produce = new ArrayList<>(List.of(kcat.toString(), "-P", "-t", topic));
    produce.addAll(common);
    ChildProcess.Result produced =
        ChildProcess.run(produce, "one\ntwo\nthree\n", Duration.ofSeconds(60));
    assertThat(produced.exitCode()).as(produced.describe()).isZero();
    List<String> consume =
        new ArrayList<>(List.of(kcat.toString(), "-C", "-t", topic, "-o", "beginning", "-e", "-q"));
    consume.addAll(common);
    ChildProcess.Result consumed = ChildProcess.run(consume, "", Duration.ofSeconds(60));
    assertThat(consumed.exitCode()).as(consumed.describe()).isZero();
    assertThat(consumed.stdoutLines()).containsExactly("one", "two", "three");
  }

  @Test
  void kafkajsWithScramIsRefusedAWrongPasswordThenProducesAndConsumes() throws Exception {
    Path node = ChildProcess.onPath("node").orElseThrow(() -> new AssertionError("node missing"));
    Path js = Path.of(System.getProperty("brook.tests.js.dir", "js")).toAbsolutePath();
    ChildProcess.Result run =
        ChildProcess.run(
            List.of(
                node.toString(),
                js.resolve("sasl-scram.js").toString(),
                saslBootstrap(),
                "sasl-kafkajs",
                "SCRAM-SHA-256",
                "bob",
                "bob-secret"),
            Map.of("KAFKAJS_NO_PARTITIONER_WARNING", "1"),
            "",
            Duration.ofSeconds(90));
    assertThat(run.exitCode()).as(run.describe()).isZero();
    assertThat(run.stdoutLines())
        .as(run.describe())
        .contains("sent 10", "consumed 10")
        .anyMatch(
            line -> line.startsWith("wrong password refused: KafkaJSSASLAuthenticationError"));
  }

  @Test
  void aSessionPastItsLifetimeIsClosedUnlessTheClientReauthenticates() throws Exception {
    // kafka-clients re-authenticates by itself when the session lifetime runs out.
    String[] settings = sasl("SCRAM-SHA-256", "bob", "bob-secret");
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(saslBootstrap(), settings)) {
      producer.send(new ProducerRecord<>("sasl-reauth", new byte[1])).get();
      Thread.sleep(REAUTH_MS + 1_000);
      producer.send(new ProducerRecord<>("sasl-reauth", new byte[1])).get();
    }
    // A client that does not is disconnected at its next request.
    try (RawKafkaClient raw =
        new RawKafkaClient("127.0.0.1", BROOK.brook().server().boundPort("SASL_PLAINTEXT"))) {
      raw.setTimeout(Duration.ofSeconds(10));
      SaslHandshakeResponseData handshake =
          new SaslHandshakeResponseData(
              new ByteBufferAccessor(
                  raw.send(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1)),
              (short) 1);
      assertThat(handshake.errorCode()).isEqualTo(Errors.NONE.code());
      byte[] token = "\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8);
      SaslAuthenticateResponseData authenticated =
          new SaslAuthenticateResponseData(
              new ByteBufferAccessor(
                  raw.send(new SaslAuthenticateRequestData().setAuthBytes(token), (short) 1)),
              (short) 1);
      assertThat(authenticated.errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(authenticated.sessionLifetimeMs()).isEqualTo(REAUTH_MS);
      raw.send(new MetadataRequestData(), (short) 12); // served within the session
      Thread.sleep(REAUTH_MS + 500);
      raw.sendBytes(RawKafkaClient.frame(new MetadataRequestData(), (short) 12, 99));
      assertThat(raw.closedByPeer()).isTrue();
    }
  }

  @Test
  void aProducerKeepsProducingAcrossReauthenticationsUntilItsCredentialIsDeleted()
      throws Exception {
    try (Admin admin = Admin.create(adminConfig(sasl("PLAIN", "alice", "alice-secret")))) {
      admin
          .alterUserScramCredentials(
              List.of(
                  new UserScramCredentialUpsertion(
                      "erin",
                      new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096),
                      "erin-secret")))
          .all()
          .get();
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(saslBootstrap(), sasl("SCRAM-SHA-256", "erin", "erin-secret"))) {
        // Two session lifetimes: the producer re-authenticates on its connections each time
        for (int lifetime = 0; lifetime < 2; lifetime++) {
          producer.send(new ProducerRecord<>("sasl-reauth", new byte[1])).get();
          Thread.sleep(REAUTH_MS + 500);
        }
        producer.send(new ProducerRecord<>("sasl-reauth", new byte[1])).get();
        assertThat(metric(producer, "successful-reauthentication-total")).isGreaterThanOrEqualTo(2);
        double initialAuthentications = metric(producer, "successful-authentication-total");

        // When the credential is deleted, the next re-authentication fails and the broker closes
        // the connection
        admin
            .alterUserScramCredentials(
                List.of(new UserScramCredentialDeletion("erin", ScramMechanism.SCRAM_SHA_256)))
            .all()
            .get();
        // (the producer then keeps failing to reconnect until its delivery timeout)
        Thread.sleep(REAUTH_MS + 500);
        producer.send(new ProducerRecord<>("sasl-reauth", new byte[1]));
        await()
            .atMost(Duration.ofSeconds(15))
            .until(() -> metric(producer, "failed-reauthentication-total") >= 1);
        assertThat(metric(producer, "successful-authentication-total"))
            .as("no new connection authenticates either")
            .isEqualTo(initialAuthentications);
      }
    }
  }

  /** A producer metric summed over its groups (the selector's per-client counters). */
  private static double metric(KafkaProducer<byte[], byte[]> producer, String name) {
    return producer.metrics().entrySet().stream()
        .filter(e -> e.getKey().name().equals(name) && e.getKey().tags().size() == 1)
        .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
        .sum();
  }
}
