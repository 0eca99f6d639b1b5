package io.brook.tests.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testkit.BrookExtension;
import io.brook.tests.TestClients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
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
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console on an admin listener reachable from other machines while Kafka clients log in with
 * SASL: every request needs the HTTP Basic credentials of a SASL user (401 without), and changes
 * act as that user under the ACLs (403 until granted, as for a Kafka client of that user).
 */
@Timeout(120)
class ConsoleAuthIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          TestClients.saslBroker("PLAIN")
              .config(
                  "authorizer.class.name",
                  "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
              .config("super.users", "User:ANONYMOUS")
              // Every interface: not loopback.
              .config("brook.admin.listener", "http://0.0.0.0:0")
              .config("brook.http.authentication.listener", "SASL_PLAINTEXT"));

  private static HttpResponse<String> send(HttpRequest.Builder request, String password)
      throws Exception {
    if (password != null) {
      String pair = "alice:" + password;
      request.header(
          "Authorization",
          "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest.Builder at(String path) {
    return HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + BROOK.brook().server().adminPort() + path));
  }

  private static HttpRequest.Builder create(String topic) {
    return at("/console/api/topics")
        .header("Content-Type", "application/json")
        .header("X-Brook-Console", "1")
        .POST(
            HttpRequest.BodyPublishers.ofString(
                "{\"name\":\"" + topic + "\",\"partitions\":1,\"replication_factor\":1}"));
  }

  @Test
  void everyRequestNeedsASaslUsersPassword() throws Exception {
    HttpResponse<String> none = send(at("/console/").GET(), null);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
    assertThat(send(at("/console/api/overview").GET(), null).statusCode()).isEqualTo(401);
    assertThat(send(at("/console/api/overview").GET(), "wrong").statusCode()).isEqualTo(401);
    assertThat(send(at("/console/").GET(), "alice-secret").statusCode()).isEqualTo(200);
    HttpResponse<String> overview = send(at("/console/api/overview").GET(), "alice-secret");
    assertThat(overview.statusCode()).isEqualTo(200);
    assertThat(overview.body()).contains("\"brokers\"");
    // The metrics stay where they were, without a login.
    assertThat(send(at("/metrics").GET(), null).statusCode()).isEqualTo(200);
  }

  @Test
  void readsActAsTheUserUnderTheAcls() throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic("secret-ledger", 1, (short) 1))).all().get();
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(BROOK.bootstrapServers())) {
        producer
            .send(new ProducerRecord<>("secret-ledger", "k".getBytes(StandardCharsets.UTF_8)))
            .get();
      }
      // Without DESCRIBE the topic is not listed, nor described.
      HttpResponse<String> listed = send(at("/console/api/topics").GET(), "alice-secret");
      assertThat(listed.statusCode()).isEqualTo(200);
      assertThat(listed.body()).doesNotContain("secret-ledger");
      assertThat(send(at("/console/api/topics/secret-ledger").GET(), "alice-secret").statusCode())
          .isEqualTo(403);
      grant(admin, "secret-ledger", AclOperation.DESCRIBE);
      assertThat(send(at("/console/api/topics").GET(), "alice-secret").body())
          .contains("secret-ledger");
      // Without READ its messages are not shown.
      HttpResponse<String> browse =
          send(at("/console/api/topics/secret-ledger/records").GET(), "alice-secret");
      assertThat(browse.statusCode()).isEqualTo(403);
      assertThat(browse.body()).contains("not authorized to read topic secret-ledger");
      grant(admin, "secret-ledger", AclOperation.READ);
      HttpResponse<String> read =
          send(at("/console/api/topics/secret-ledger/records").GET(), "alice-secret");
      assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
      assertThat(read.body()).contains("\"offset\":0");
    }
  }

  /**
   * A group committed on 180 partitions of 15 topics, 60 of them in topics alice may not describe:
   * her page of it shows the others, 100 at a time by topic and partition, with totals over all the
   * partitions she may see and only those, as its row in the groups list does; once she may
   * describe every topic, all of them.
   */
  @Test
  void aWideGroupsPageAndTotalsCountOnlyTheTopicsTheUserMayDescribe() throws Exception {
    List<String> open = new ArrayList<>();
    List<String> hidden = new ArrayList<>();
    for (int t = 0; t < 10; t++) {
      open.add(String.format(Locale.ROOT, "wide-open-%02d", t));
    }
    for (int t = 0; t < 5; t++) {
      hidden.add(String.format(Locale.ROOT, "wide-hidden-%02d", t));
    }
    // Records per partition: a few, different ones, so each total is a sum of distinct lags.
    Map<TopicPartition, Integer> records = new HashMap<>();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      List<NewTopic> topics = new ArrayList<>();
      for (String topic : concat(open, hidden)) {
        topics.add(new NewTopic(topic, 12, (short) 1));
      }
      admin.createTopics(topics).all().get();
      try (KafkaProducer<byte[], byte[]> producer =
          TestClients.producer(BROOK.bootstrapServers())) {
        int t = 0;
        for (String topic : concat(open, hidden)) {
          for (int p = 0; p < 12; p++) {
            int count = (t + p) % 4;
            records.put(new TopicPartition(topic, p), count);
            for (int i = 0; i < count; i++) {
              producer.send(new ProducerRecord<>(topic, p, null, bytes("r" + i)));
            }
          }
          t++;
        }
        producer.flush();
      }
      Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
      records.keySet().forEach(tp -> committed.put(tp, new OffsetAndMetadata(0)));
      admin.alterConsumerGroupOffsets("wide-group", committed).all().get();
      admin
          .createAcls(
              List.of(
                  allow(ResourceType.GROUP, "wide-group", PatternType.LITERAL),
                  allow(ResourceType.TOPIC, "wide-open-", PatternType.PREFIXED)))
          .all()
          .get();
      long openLag = lag(records, open);
      long allLag = openLag + lag(records, hidden);

      // The ACLs apply once the broker's metadata has them.
      await("alice's page of wide-group")
          .atMost(Duration.ofSeconds(30))
          .until(() -> partitionsShown("wide-group") == 120);
      JsonNode first = json(send(at("/console/api/groups/wide-group").GET(), "alice-secret"));
      assertThat(first.get("partition_count").asInt()).isEqualTo(120);
      assertThat(first.get("lag_records").asLong()).isEqualTo(openLag);
      assertThat(first.get("offset").asInt()).isZero();
      JsonNode rows = first.get("partitions");
      assertThat(rows).hasSize(100);
      for (int i = 0; i < 100; i++) {
        JsonNode row = rows.get(i);
        TopicPartition tp = new TopicPartition(open.get(i / 12), i % 12);
        assertThat(row.get("topic").asText()).isEqualTo(tp.topic());
        assertThat(row.get("partition").asInt()).isEqualTo(tp.partition());
        assertThat(row.get("committed_offset").asLong()).isZero();
        long produced = records.get(tp);
        assertThat(row.get("log_end_offset").asLong()).isEqualTo(produced);
        assertThat(row.get("lag_records").asLong()).isEqualTo(produced);
      }
      assertThat(first.toString()).doesNotContain("wide-hidden");

      JsonNode second =
          json(send(at("/console/api/groups/wide-group?offset=100").GET(), "alice-secret"));
      assertThat(second.get("partition_count").asInt()).isEqualTo(120);
      assertThat(second.get("lag_records").asLong()).isEqualTo(openLag);
      assertThat(second.get("partitions")).hasSize(20);
      assertThat(second.get("partitions").get(0).get("topic").asText()).isEqualTo(open.get(8));
      assertThat(second.get("partitions").get(0).get("partition").asInt()).isEqualTo(4);

      JsonNode listed =
          json(send(at("/console/api/groups?q=wide-group").GET(), "alice-secret"))
              .get("groups")
              .get(0);
      assertThat(listed.get("group_id").asText()).isEqualTo("wide-group");
      assertThat(listed.get("lag_records").asLong()).isEqualTo(openLag);

      // Allowed to describe every topic: every partition shows and counts.
      admin
          .createAcls(List.of(allow(ResourceType.TOPIC, "wide-hidden-", PatternType.PREFIXED)))
          .all()
          .get();
      await("every partition of wide-group on alice's page")
          .atMost(Duration.ofSeconds(30))
          .until(() -> partitionsShown("wide-group") == 180);
      JsonNode all =
          json(send(at("/console/api/groups/wide-group?offset=100").GET(), "alice-secret"));
      assertThat(all.get("lag_records").asLong()).isEqualTo(allLag);
      // Sorted by name, wide-hidden-* come first: offset 100 is wide-open-03 partition 4.
      assertThat(all.get("partitions")).hasSize(80);
      assertThat(all.get("partitions").get(0).get("topic").asText()).isEqualTo(open.get(3));
      assertThat(all.get("partitions").get(0).get("partition").asInt()).isEqualTo(4);
      assertThat(
              json(send(at("/console/api/groups?q=wide-group").GET(), "alice-secret"))
                  .get("groups")
                  .get(0)
                  .get("lag_records")
                  .asLong())
          .isEqualTo(allLag);
    }
  }

  /** The partitions alice's page of the group counts, -1 while it is refused. */
  private static int partitionsShown(String group) throws Exception {
    HttpResponse<String> page = send(at("/console/api/groups/" + group).GET(), "alice-secret");
    return page.statusCode() == 200
        ? JSON.readTree(page.body()).get("partition_count").asInt()
        : -1;
  }

  private static long lag(Map<TopicPartition, Integer> records, List<String> topics) {
    return records.entrySet().stream()
        .filter(e -> topics.contains(e.getKey().topic()))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static AclBinding allow(ResourceType type, String name, PatternType pattern) {
    return new AclBinding(
        new ResourcePattern(type, name, pattern),
        new AccessControlEntry("User:alice", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void grant(Admin admin, String topic, AclOperation operation) throws Exception {
    admin
        .createAcls(
            List.of(
                new AclBinding(
                    new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                    new AccessControlEntry("User:alice", "*", operation, AclPermissionType.ALLOW))))
        .all()
        .get();
  }

  @Test
  void changesActAsTheUserUnderTheAcls() throws Exception {
    HttpResponse<String> denied = send(create("console-alice"), "alice-secret");
    assertThat(denied.statusCode()).isEqualTo(403);
    assertThat(denied.body()).contains("AUTHORIZATION_FAILED");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      assertThat(admin.listTopics().names().get()).doesNotContain("console-alice");
      admin
          .createAcls(
              List.of(
                  new AclBinding(
                      new ResourcePattern(ResourceType.TOPIC, "console-", PatternType.PREFIXED),
                      new AccessControlEntry(
                          "User:alice", "*", AclOperation.CREATE, AclPermissionType.ALLOW))))
          .all()
          .get();
      HttpResponse<String> created = send(create("console-alice"), "alice-secret");
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
      assertThat(admin.listTopics().names().get()).contains("console-alice");
    }
  }
}
