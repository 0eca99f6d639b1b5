package io.brook.tests.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testkit.BrookExtension;
import io.brook.tests.TestClients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The HTTP API on a node with a SASL listener and an authorizer: requests need HTTP Basic
 * credentials, checked against that listener's PLAIN users and SCRAM credentials (401 without them
 * or with a wrong password), and then act as {@code User:<name>} under the same ACLs as a Kafka
 * client of that user (403 with Kafka's authorization error when they deny, success once granted).
 */
@Timeout(120)
class HttpApiAuthIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String TOPIC = "secured";

  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          TestClients.saslBroker("PLAIN,SCRAM-SHA-256")
              .config(
                  "brook.sasl.scram.bootstrap.credentials",
                  "SCRAM-SHA-256=[name=carol,password=carol-secret]")
              .config(
                  "authorizer.class.name",
                  "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
              // The test's own PLAINTEXT clients (and the broker's) administer the cluster.
              .config("super.users", "User:ANONYMOUS")
              .config("brook.http.listener", "http://127.0.0.1:0")
              .config("brook.http.authentication.listener", "SASL_PLAINTEXT"));

  @BeforeAll
  static void topic() throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
    }
  }

  private static void allow(String user, ResourceType type, String name, AclOperation... ops)
      throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      List<AclBinding> acls =
          java.util.Arrays.stream(ops)
              .map(
                  op ->
                      new AclBinding(
                          new ResourcePattern(type, name, PatternType.LITERAL),
                          new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW)))
              .toList();
      admin.createAcls(acls).all().get();
    }
  }

  record Answer(int status, JsonNode body, HttpResponse<String> raw) {}

  private static Answer send(HttpRequest.Builder request, String user, String password)
      throws Exception {
    request.header("Content-Type", "application/json");
    if (user != null) {
      String pair = user + ":" + password;
      request.header(
          "Authorization",
          "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }
    HttpResponse<String> response =
        HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(response.statusCode(), JSON.readTree(response.body()), response);
  }

  private static HttpRequest.Builder at(String path) {
    return HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + BROOK.brook().server().httpPort() + path));
  }

  private static Answer produce(String user, String password) throws Exception {
    return send(
        at("/v1/topics/" + TOPIC + "/records")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"records\":[{\"value\":{\"by\":\"" + user + "\"}}]}")),
        user,
        password);
  }

  @Test
  void requestsWithoutValidCredentialsGet401() throws Exception {
    Answer none = send(at("/v1/metadata").GET(), null, null);
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.body().get("error").asText()).isEqualTo("SASL_AUTHENTICATION_FAILED");
    assertThat(none.raw().headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
    assertThat(send(at("/v1/metadata").GET(), "alice", "wrong").status()).isEqualTo(401);
    assertThat(send(at("/v1/metadata").GET(), "carol", "alice-secret").status()).isEqualTo(401);
    assertThat(send(at("/v1/metadata").GET(), "mallory", "x").status()).isEqualTo(401);
    // Even an unknown path answers 401 first: an unauthenticated caller learns nothing.
    assertThat(send(at("/v1/nothing").GET(), null, null).status()).isEqualTo(401);
  }

  @Test
  void aclsDenyAndGrantAsForKafkaClientsOfTheSameUser() throws Exception {
    // PLAIN user alice, no ACLs: the topic is hidden and writing is refused.
    Answer denied = produce("alice", "alice-secret");
    assertThat(denied.status()).as(denied.body().toString()).isEqualTo(403);
    assertThat(denied.body().get("error").asText()).isEqualTo("TOPIC_AUTHORIZATION_FAILED");
    assertThat(denied.body().get("error_code").asInt()).isEqualTo(29);
    Answer listed = send(at("/v1/topics").GET(), "alice", "alice-secret");
    assertThat(listed.status()).isEqualTo(200);
    assertThat(listed.body().get("topics").findValuesAsText("name")).doesNotContain(TOPIC);
    Answer create =
        send(
            at("/v1/topics").POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"alices\"}")),
            "alice",
            "alice-secret");
    assertThat(create.status()).as(create.body().toString()).isEqualTo(403);
    Answer commit =
        send(
            at("/v1/groups/alices-group/offsets")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"offsets\":[{\"topic\":\""
                            + TOPIC
                            + "\",\"partition\":0,\"offset\":1}]}")),
            "alice",
            "alice-secret");
    assertThat(commit.status()).as(commit.body().toString()).isEqualTo(403);
    assertThat(commit.body().get("error").asText()).isEqualTo("GROUP_AUTHORIZATION_FAILED");

    // Granted WRITE, alice writes; SCRAM user carol may not yet read it.
    allow("alice", ResourceType.TOPIC, TOPIC, AclOperation.WRITE);
    Answer written = produce("alice", "alice-secret");
    assertThat(written.status()).as(written.body().toString()).isEqualTo(200);
    assertThat(written.body().get("offsets").get(0).get("offset").asLong()).isZero();
    String fetch = "/v1/topics/" + TOPIC + "/partitions/0/records?offset=0&max_wait_ms=0";
    Answer unread = send(at(fetch).GET(), "carol", "carol-secret");
    assertThat(unread.status()).isEqualTo(403);
    assertThat(unread.body().get("error").asText()).isEqualTo("TOPIC_AUTHORIZATION_FAILED");

    // Granted READ, carol (checked against her SCRAM credential) reads alice's record.
    allow("carol", ResourceType.TOPIC, TOPIC, AclOperation.READ);
    Answer read = send(at(fetch).GET(), "carol", "carol-secret");
    assertThat(read.status()).as(read.body().toString()).isEqualTo(200);
    assertThat(read.body().get("records").get(0).get("value").get("by").asText())
        .isEqualTo("alice");
    assertThat(produce("carol", "carol-secret").status()).isEqualTo(403);
  }
}
