package io.brook.tests.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import io.brook.testkit.TestCertificates;
import io.brook.testkit.TestCertificates.StoreType;
import io.brook.tests.ChildProcess;
import io.brook.tests.TestClients;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TLS, SASL and ACLs together: kafka-clients on a SASL_SSL listener (TLS below, SCRAM-SHA-512
 * above) with the StandardAuthorizer on. Each SASL user is its own principal to the ACLs: a user
 * without WRITE is refused with TOPIC_AUTHORIZATION_FAILED, the same user produces and consumes
 * once granted WRITE and READ by an administrator's Admin call, and another user stays refused.
 * SCRAM users are managed over the same listener (AlterUserScramCredentials needs ALTER on the
 * cluster). Non-Java clients over the same SASL_SSL listener: kcat (Debian's, librdkafka 2.0.2) and
 * kafkajs with SCRAM-SHA-512 produce and consume.
 */
@Timeout(180)
class SaslSslAclIT {
  private static final String TOPIC = "orders";
  private static final String KCAT_TOPIC = "kcat-sasl-ssl";
  private static final String KAFKAJS_TOPIC = "kafkajs-sasl-ssl";

  private static final Path CERT_DIR = tempDir();
  private static final TestCertificates CERTS = TestCertificates.create(CERT_DIR);

  @RegisterExtension static final BrookExtension BROOK = new BrookExtension(builder());

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("brook-sasl-ssl-certs");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static EmbeddedBrook.Builder builder() {
    EmbeddedBrook.Builder builder =
        EmbeddedBrook.builder()
            .config(
                "listeners",
                "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0,CONTROLLER://127.0.0.1:0")
            .config("advertised.listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0")
            .config(
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT")
            .config("inter.broker.listener.name", "PLAINTEXT")
            .config("sasl.enabled.mechanisms", "SCRAM-SHA-512")
            .config(
                "brook.sasl.scram.bootstrap.credentials",
                "SCRAM-SHA-512=[name=admin,password=admin-secret]"
                    + " SCRAM-SHA-512=[name=alice,password=alice-secret]"
                    + " SCRAM-SHA-512=[name=bob,password=bob-secret]")
            .config(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .config("super.users", "User:admin");
    CERTS.issue("broker", StoreType.PKCS12).keystoreConfig().forEach(builder::config);
    CERTS.truststoreConfig(StoreType.PKCS12).forEach(builder::config);
    return builder;
  }

  private static String bootstrap() {
    return "127.0.0.1:" + BROOK.brook().server().boundPort("SASL_SSL");
  }

  /** kafka-clients settings for SASL_SSL with SCRAM-SHA-512 as {@code user}. */
  private static Map<String, String> client(String user, String password) {
    Map<String, String> props = new LinkedHashMap<>(CERTS.truststoreConfig(StoreType.PEM));
    props.put("security.protocol", "SASL_SSL");
    props.put("sasl.mechanism", "SCRAM-SHA-512");
    props.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + user
            + "\" password=\""
            + password
            + "\";");
    props.put("request.timeout.ms", "10000");
    props.put("delivery.timeout.ms", "20000");
    props.put("max.block.ms", "20000");
    return props;
  }

  private static String[] pairs(Map<String, String> props) {
    List<String> out = new ArrayList<>();
    props.forEach(
        (k, v) -> {
          out.add(k);
          out.add(v);
        });
    return out.toArray(String[]::new);
  }

  private static Admin admin(String user, String password) {
    Map<String, Object> props = new LinkedHashMap<>(client(user, password));
    props.put("bootstrap.servers", bootstrap());
    return Admin.create(props);
  }

  /** Produces {@code value}, idempotent (the default) when {@code idempotent}. */
  private static void produce(String user, String password, String value, boolean idempotent)
      throws Exception {
    Map<String, String> props = client(user, password);
    if (!idempotent) {
      // Without WRITE anywhere, an idempotent producer is refused InitProducerId first (cluster
      // authorization); a plain one reaches the topic's own check.
      props.put("enable.idempotence", "false");
      props.put("retries", "0");
    }
    try (KafkaProducer<byte[], byte[]> producer = TestClients.producer(bootstrap(), pairs(props))) {
      producer.send(new ProducerRecord<>(TOPIC, value.getBytes(StandardCharsets.UTF_8))).get();
    }
  }

  @BeforeAll
  static void topic() throws Exception {
    try (Admin admin = admin("admin", "admin-secret")) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(TOPIC, 1, (short) 1),
                  new NewTopic(KCAT_TOPIC, 1, (short) 1),
                  new NewTopic(KAFKAJS_TOPIC, 1, (short) 1)))
          .all()
          .get();
    }
  }

  @Test
  void kcatWithScramSha512OverTlsProducesAndConsumes() throws Exception {
    // Debian's kcat carries librdkafka 2.0.2, whose SCRAM final message repeats the client nonce.
    List<String> common =
        List.of(
            "-b",
            bootstrap(),
            "-X",
            "security.protocol=sasl_ssl",
            "-X",
            "ssl.ca.location=" + CERTS.caPem(),
            "-X",
            "sasl.mechanisms=SCRAM-SHA-512",
            "-X",
            "sasl.username=admin",
            "-X",
            "sasl.password=admin-secret");
    List<String> produce = new ArrayList<>(List.of("kcat", "-P", "-t", KCAT_TOPIC));
    produce.addAll(common);
    ChildProcess.Result produced =
        ChildProcess.run(produce, "one\ntwo\nthree\n", Duration.ofSeconds(60));
    assertThat(produced.exitCode()).as(produced.describe()).isZero();
    List<String> consume =
        new ArrayList<>(List.of("kcat", "-C", "-t", KCAT_TOPIC, "-o", "beginning", "-e", "-q"));
    consume.addAll(common);
    ChildProcess.Result consumed = ChildProcess.run(consume, "", Duration.ofSeconds(60));
    assertThat(consumed.exitCode()).as(consumed.describe()).isZero();
    assertThat(consumed.stdout().lines()).containsExactly("one", "two", "three");
  }

  @Test
  void kafkajsWithScramOverTlsIsRefusedAWrongPasswordThenProducesAndConsumes() throws Exception {
    Path js = Path.of(System.getProperty("brook.tests.js.dir", "js")).toAbsolutePath();
    // The first group lookup creates __consumer_offsets (50 partitions), which can take seconds on
    // a loaded machine; kafkajs, with the script's two retries, may give up and sit out a restart
    // back-off meanwhile. Admin waits for the coordinator, so kafkajs finds it in place.
    try (Admin admin = admin("admin", "admin-secret")) {
      assertThat(
              admin
                  .listConsumerGroupOffsets("brook-kafkajs-sasl")
                  .partitionsToOffsetAndMetadata()
                  .get())
          .isEmpty();
    }
    ChildProcess.Result run =
        ChildProcess.run(
            List.of(
                "node",
                js.resolve("sasl-scram.js").toString(),
                bootstrap(),
                KAFKAJS_TOPIC,
                "SCRAM-SHA-512",
                "admin",
                "admin-secret",
                CERTS.caPem().toString()),
            "",
            Duration.ofSeconds(90));
    assertThat(run.exitCode()).as(run.describe()).isZero();
    assertThat(run.stdout().lines())
        .as(run.describe())
        .contains("sent 10", "consumed 10")
        .anyMatch(
            line -> line.startsWith("wrong password refused: KafkaJSSASLAuthenticationError"));
  }

  @Test
  void aSaslUserIsItsOwnPrincipalToTheAcls() throws Exception {
    // alice has no ACL yet: her produce is refused for the topic.
    assertThatThrownBy(() -> produce("alice", "alice-secret", "denied", false))
        .hasRootCauseInstanceOf(TopicAuthorizationException.class);

    try (Admin admin = admin("admin", "admin-secret")) {
      ResourcePattern topic = new ResourcePattern(ResourceType.TOPIC, TOPIC, PatternType.LITERAL);
      admin
          .createAcls(
              List.of(
                  new AclBinding(
                      topic,
                      new AccessControlEntry(
                          "User:alice", "*", AclOperation.WRITE, AclPermissionType.ALLOW)),
                  new AclBinding(
                      topic,
                      new AccessControlEntry(
                          "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)),
                  // bob may see the topic, not write to it: his Produce itself is refused.
                  new AclBinding(
                      topic,
                      new AccessControlEntry(
                          "User:bob", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW))))
          .all()
          .get();
    }

    produce("alice", "alice-secret", "granted", true);
    try (KafkaConsumer<byte[], byte[]> consumer =
        TestClients.consumer(bootstrap(), pairs(client("alice", "alice-secret")))) {
      TopicPartition tp = new TopicPartition(TOPIC, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      List<String> values = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (values.isEmpty() && System.nanoTime() < deadline) {
        consumer
            .poll(Duration.ofMillis(500))
            .forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
      }
      assertThat(values).containsExactly("granted");
    }

    // The grant is alice's, not every SASL user's.
    assertThatThrownBy(() -> produce("bob", "bob-secret", "denied", false))
        .hasRootCauseInstanceOf(TopicAuthorizationException.class);
  }

  @Test
  void scramUsersAreManagedOverSaslSslWithAlterOnTheCluster() throws Exception {
    UserScramCredentialUpsertion carol =
        new UserScramCredentialUpsertion(
            "carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "carol-secret");
    try (Admin alice = admin("alice", "alice-secret")) {
      assertThatThrownBy(() -> alice.alterUserScramCredentials(List.of(carol)).all().get())
          .hasCauseInstanceOf(ClusterAuthorizationException.class);
      assertThatThrownBy(() -> alice.describeUserScramCredentials().all().get())
          .hasCauseInstanceOf(ClusterAuthorizationException.class);
    }
    try (Admin admin = admin("admin", "admin-secret")) {
      admin.alterUserScramCredentials(List.of(carol)).all().get();
      assertThat(admin.describeUserScramCredentials(List.of("carol")).all().get())
          .containsKey("carol");
    }
    // carol authenticates (a wrong password would be a SaslAuthenticationException) and, with no
    // ACL of hers, is refused the topic.
    assertThatThrownBy(() -> produce("carol", "carol-secret", "denied", false))
        .hasRootCauseInstanceOf(TopicAuthorizationException.class);
  }
}
