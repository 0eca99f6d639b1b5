package io.brook.tests.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testports.PortAllocator;
import io.brook.tests.TestClients;
import io.brook.tests.cluster.ClusterHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console of a three-node process cluster whose Kafka listeners use SASL PLAIN and whose
 * brokers run Kafka's StandardAuthorizer: two users logged in to broker 1's console see only what
 * their ACLs allow on the pages broker 1 fans out to, or forwards to, the other brokers: the groups
 * and transactions another broker coordinates (listed, and a group's page), a topic's partitions
 * led elsewhere (their offsets from the leader), and with too few rights: another user's group
 * refused, a group's offsets on a topic the user may not describe left out, the messages of a
 * partition led elsewhere refused without READ on the topic, an offset reset refused without READ
 * on the group; each allowed once granted.
 */
@Timeout(240)
class ConsoleClusterAuthIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration PROPAGATION = Duration.ofSeconds(30);

  @TempDir Path dir;
  private String base;

  @Test
  void eachUserSeesWhatTheirAclsAllowOnPagesServedByOtherBrokers() throws Exception {
    Map<Integer, Integer> adminPorts = new HashMap<>();
    for (int id = 1; id <= 3; id++) {
      adminPorts.put(id, PortAllocator.shared().allocate());
    }
    Map<String, String> config = new HashMap<>();
    config.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT");
    config.put("sasl.enabled.mechanisms", "PLAIN");
    config.put(
        "listener.name.sasl_plaintext.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " user_alice=\"alice-secret\" user_bob=\"bob-secret\";");
    config.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    // The brokers (and this test's Admin) on PLAINTEXT: the console's requests to other brokers go
    // as the node, so only broker 1's checks of the logged-in user keep them in bounds.
    config.put("super.users", "User:ANONYMOUS");
    config.put("brook.http.authentication.listener", "SASL_PLAINTEXT");
    try (ClusterHarness cluster =
            ClusterHarness.startWithListener(
                Files.createDirectories(dir.resolve("cluster")),
                3,
                "SASL_PLAINTEXT",
                config,
                // Every interface, not loopback: the console asks for a login.
                id -> Map.of("brook.admin.listener", "http://0.0.0.0:" + adminPorts.get(id)));
        Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
      base = "http://127.0.0.1:" + adminPorts.get(1) + "/console/api/";
      // One replica each, placed: partition 0 led by broker 2, 1 by broker 3, 2 by broker 1.
      admin
          .createTopics(
              List.of(
                  new NewTopic("acl-open", Map.of(0, List.of(2), 1, List.of(3), 2, List.of(1))),
                  new NewTopic("acl-secret", Map.of(0, List.of(2)))))
          .all()
          .get();
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(cluster.bootstrapServers())) {
        for (int i = 0; i < 5; i++) {
          for (int p = 0; p < 3; p++) {
            producer.send(new ProducerRecord<>("acl-open", p, null, bytes("open-" + i))).get();
          }
          producer.send(new ProducerRecord<>("acl-secret", 0, null, bytes("secret-" + i))).get();
        }
      }

      // A group and a transactional id of each user's, each coordinated by broker 2 or 3.
      TopicPartition open0 = new TopicPartition("acl-open", 0);
      TopicPartition secret0 = new TopicPartition("acl-secret", 0);
      admin
          .alterConsumerGroupOffsets("acl-probe", Map.of(open0, new OffsetAndMetadata(0)))
          .all()
          .get();
      Map.Entry<String, Integer> aliceGroup =
          ConsoleClusterIT.coordinatedElsewhere(admin, "__consumer_offsets", "alice-g-");
      Map.Entry<String, Integer> bobGroup =
          ConsoleClusterIT.coordinatedElsewhere(admin, "__consumer_offsets", "bob-g-");
      admin
          .alterConsumerGroupOffsets(
              aliceGroup.getKey(),
              Map.of(open0, new OffsetAndMetadata(4), secret0, new OffsetAndMetadata(2)))
          .all()
          .get();
      admin
          .alterConsumerGroupOffsets(bobGroup.getKey(), Map.of(secret0, new OffsetAndMetadata(1)))
          .all()
          .get();
      try (KafkaProducer<byte[], byte[]> probe =
          TestClients.producer(cluster.bootstrapServers(), "transactional.id", "acl-probe")) {
        probe.initTransactions(); // creates the transaction state topic
      }
      Map.Entry<String, Integer> aliceTxn =
          ConsoleClusterIT.coordinatedElsewhere(admin, "__transaction_state", "alice-t-");
      Map.Entry<String, Integer> bobTxn =
          ConsoleClusterIT.coordinatedElsewhere(admin, "__transaction_state", "bob-t-");
      for (String txn : List.of(aliceTxn.getKey(), bobTxn.getKey())) {
        try (KafkaProducer<byte[], byte[]> producer =
            TestClients.producer(cluster.bootstrapServers(), "transactional.id", txn)) {
          producer.initTransactions();
          producer.beginTransaction();
          producer.send(new ProducerRecord<>("acl-open", 2, null, bytes(txn))).get();
          producer.commitTransaction();
        }
      }

      admin
          .createAcls(
              List.of(
                  allow("alice", ResourceType.TOPIC, "acl-open", false, AclOperation.DESCRIBE),
                  allow("alice", ResourceType.GROUP, "alice-g-", true, AclOperation.DESCRIBE),
                  allow(
                      "alice",
                      ResourceType.TRANSACTIONAL_ID,
                      "alice-t-",
                      true,
                      AclOperation.DESCRIBE),
                  allow("bob", ResourceType.TOPIC, "acl-secret", false, AclOperation.DESCRIBE),
                  allow("bob", ResourceType.GROUP, "bob-g-", true, AclOperation.DESCRIBE),
                  allow(
                      "bob", ResourceType.TRANSACTIONAL_ID, "bob-t-", true, AclOperation.DESCRIBE)))
          .all()
          .get();
      // Broker 1 applies the ACLs once its metadata has them.
      await("the ACLs on broker 1")
          .atMost(PROPAGATION)
          .until(
              () ->
                  ids(get("groups", "alice").body(), "groups", "group_id")
                          .contains(aliceGroup.getKey())
                      && ids(get("transactions", "bob").body(), "transactions", "transactional_id")
                          .contains(bobTxn.getKey()));

      // The groups list: each user's own, with the broker coordinating it.
      JsonNode aliceGroups = ok(get("groups", "alice"));
      assertThat(ids(aliceGroups, "groups", "group_id"))
          .contains(aliceGroup.getKey())
          .doesNotContain(bobGroup.getKey(), "acl-probe");
      assertThat(
              row(aliceGroups, "groups", "group_id", aliceGroup.getKey())
                  .get("coordinator")
                  .asInt())
          .isEqualTo(aliceGroup.getValue());
      assertThat(ids(ok(get("groups", "bob")), "groups", "group_id"))
          .contains(bobGroup.getKey())
          .doesNotContain(aliceGroup.getKey(), "acl-probe");

      // A group's page, from its coordinator: the offsets of the topics the user may describe.
      JsonNode group = ok(get("groups/" + aliceGroup.getKey(), "alice"));
      assertThat(group.get("coordinator").asInt()).isEqualTo(aliceGroup.getValue());
      assertThat(group.get("partition_count").asInt()).isEqualTo(1);
      assertThat(group.get("partitions").get(0).get("topic").asText()).isEqualTo("acl-open");
      assertThat(group.get("partitions").get(0).get("committed_offset").asLong()).isEqualTo(4);
      assertThat(group.get("partitions").get(0).get("lag_records").asLong()).isEqualTo(1);
      assertThat(group.toString()).doesNotContain("acl-secret");
      assertThat(get("groups/" + aliceGroup.getKey(), "bob").statusCode()).isEqualTo(403);
      assertThat(get("groups/" + bobGroup.getKey(), "alice").statusCode()).isEqualTo(403);

      // The transactions: each user's own, described by their coordinator.
      JsonNode aliceTxns = ok(get("transactions", "alice"));
      assertThat(ids(aliceTxns, "transactions", "transactional_id"))
          .contains(aliceTxn.getKey())
          .doesNotContain(bobTxn.getKey(), "acl-probe");
      JsonNode txn = row(aliceTxns, "transactions", "transactional_id", aliceTxn.getKey());
      assertThat(txn.get("coordinator").asInt()).isEqualTo(aliceTxn.getValue());
      assertThat(txn.get("state").asText()).isIn("PrepareCommit", "CompleteCommit");
      assertThat(ids(ok(get("transactions", "bob")), "transactions", "transactional_id"))
          .contains(bobTxn.getKey())
          .doesNotContain(aliceTxn.getKey());

      // Topics: listed and described to those who may describe them; the partitions brokers 2
      // and 3 lead carry the offsets their leaders gave.
      assertThat(ids(ok(get("topics", "alice")), "topics", "name"))
          .contains("acl-open")
          .doesNotContain("acl-secret");
      assertThat(ids(ok(get("topics", "bob")), "topics", "name"))
          .contains("acl-secret")
          .doesNotContain("acl-open");
      JsonNode topic = ok(get("topics/acl-open", "alice"));
      for (JsonNode p : topic.get("partitions")) {
        int partition = p.get("partition").asInt();
        assertThat(p.get("leader").asInt()).isEqualTo(partition == 0 ? 2 : partition == 1 ? 3 : 1);
        if (partition < 2) {
          assertThat(p.get("log_start_offset").asLong()).as(p.toString()).isZero();
          assertThat(p.get("high_watermark").asLong()).as(p.toString()).isEqualTo(5);
        }
      }
      assertThat(get("topics/acl-open", "bob").statusCode()).isEqualTo(403);
      assertThat(get("topics/acl-secret", "alice").statusCode()).isEqualTo(403);

      // Messages of a partition broker 2 leads: refused without READ, read from the leader with.
      HttpResponse<String> refused = get("topics/acl-open/records?partition=0", "alice");
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(refused.body()).contains("not authorized to read topic acl-open");
      admin
          .createAcls(
              List.of(allow("alice", ResourceType.TOPIC, "acl-open", false, AclOperation.READ)))
          .all()
          .get();
      await("READ on acl-open on broker 1")
          .atMost(PROPAGATION)
          .until(() -> get("topics/acl-open/records?partition=0", "alice").statusCode() == 200);
      JsonNode records = ok(get("topics/acl-open/records?partition=0", "alice"));
      assertThat(records.get("records")).hasSize(5);
      assertThat(records.get("records").get(4).get("value").get("text").asText())
          .isEqualTo("open-4");
      assertThat(get("topics/acl-secret/records?partition=0", "alice").statusCode()).isEqualTo(403);

      // An offset reset of alice's group, coordinated by another broker: previewed with DESCRIBE
      // (only the offsets she may see), refused without READ on the group, applied with it.
      String reset = "groups/" + aliceGroup.getKey() + "/reset";
      JsonNode preview = ok(post(reset, "alice", "{\"to\":\"earliest\",\"apply\":false}"));
      assertThat(preview.get("partitions")).hasSize(1);
      assertThat(preview.get("partitions").get(0).get("current_offset").asLong()).isEqualTo(4);
      assertThat(preview.get("partitions").get(0).get("new_offset").asLong()).isZero();
      HttpResponse<String> denied = post(reset, "alice", "{\"to\":\"earliest\",\"apply\":true}");
      assertThat(denied.statusCode()).as(denied.body()).isEqualTo(403);
      assertThat(committed(admin, aliceGroup.getKey(), open0)).isEqualTo(4);
      admin
          .createAcls(
              List.of(allow("alice", ResourceType.GROUP, "alice-g-", true, AclOperation.READ)))
          .all()
          .get();
      await("READ on alice's groups on broker 1")
          .atMost(PROPAGATION)
          .until(
              () ->
                  post(reset, "alice", "{\"to\":\"earliest\",\"apply\":true}").statusCode() == 200);
      assertThat(committed(admin, aliceGroup.getKey(), open0)).isZero();
      // Her reset left what she may not see alone.
      assertThat(committed(admin, aliceGroup.getKey(), secret0)).isEqualTo(2);
    }
  }

  private static AclBinding allow(
      String user, ResourceType type, String name, boolean prefixed, AclOperation operation) {
    return new AclBinding(
        new ResourcePattern(type, name, prefixed ? PatternType.PREFIXED : PatternType.LITERAL),
        new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW));
  }

  private HttpResponse<String> get(String path, String user) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), user);
  }

  private HttpResponse<String> post(String path, String user, String body) throws Exception {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .header("X-Brook-Console", "1")
            .POST(HttpRequest.BodyPublishers.ofString(body)),
        user);
  }

  private static HttpResponse<String> send(HttpRequest.Builder request, String user)
      throws Exception {
    String pair = user + ":" + user + "-secret";
    request.header(
        "Authorization",
        "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode ok(HttpResponse<String> response) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static List<String> ids(String body, String list, String field) throws Exception {
    return ids(JSON.readTree(body), list, field);
  }

  private static List<String> ids(JsonNode page, String list, String field) {
    List<String> ids = new ArrayList<>();
    JsonNode rows = page.get(list);
    if (rows != null) {
      rows.forEach(r -> ids.add(r.get(field).asText()));
    }
    return ids;
  }

  private static JsonNode row(JsonNode page, String list, String field, String id) {
    for (JsonNode r : page.get(list)) {
      if (r.get(field).asText().equals(id)) {
        return r;
      }
    }
    throw new AssertionError("no " + id + " in " + page);
  }

  private static long committed(Admin admin, String group, TopicPartition tp) throws Exception {
    return admin
        .listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata()
        .get()
        .get(tp)
        .offset();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
