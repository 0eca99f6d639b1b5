package io.brook.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import io.brook.testkit.EmbeddedBrook;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
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

  @RegisterExtension
  static final BrookExtension BROOK =
      new BrookExtension(
          EmbeddedBrook.builder()
              .config(
                  "listeners",
                  "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0")
              .config(
                  "advertised.listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0")
              .config(
                  "listener.security.protocol.map",
                  "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT")
              .config("inter.broker.listener.name", "PLAINTEXT")
              .config("sasl.enabled.mechanisms", "PLAIN")
              .config(
                  "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                  "org.apache.kafka.common.security.plain.PlainLoginModule required"
                      + " user_alice=\"alice-secret\";")
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
