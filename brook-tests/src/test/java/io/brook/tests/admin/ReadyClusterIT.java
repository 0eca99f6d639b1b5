package io.brook.tests.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.brook.testkit.EmbeddedBrookCluster;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /ready} on a three-node cluster: 200 on every serving node; 503 with a JSON reason on a
 * node that is starting and cannot register (alone, it has no quorum to register with, so it stays
 * there until the test lets it); 200 on it once a second node gives the quorum a majority and it is
 * registered, unfenced and serving. Every wait is on a condition; the test's timeout bounds them.
 */
@Timeout(240)
class ReadyClusterIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static EmbeddedBrookCluster cluster;

  @BeforeAll
  static void start() {
    cluster = EmbeddedBrookCluster.builder().adminListeners().start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** A {@code /ready} answer. */
  private record Answer(int status, String body) {}

  /**
   * The node's {@code /ready} answer, or null while its admin listener does not accept. A new
   * connection each time ({@code Connection: close}, as a probe makes): a pooled one could outlive
   * the node it was made to.
   */
  private static Answer ready(int nodeId) {
    try {
      HttpURLConnection connection =
          (HttpURLConnection)
              URI.create("http://127.0.0.1:" + cluster.adminPort(nodeId) + "/ready")
                  .toURL()
                  .openConnection();
      connection.setRequestProperty("Connection", "close");
      connection.setConnectTimeout(10_000);
      connection.setReadTimeout(30_000);
      int status = connection.getResponseCode();
      try (InputStream in =
          status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
        return new Answer(status, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      return null;
    }
  }

  private static Answer awaitReadyStatus(int nodeId, int status) throws Exception {
    return awaitReadyStatus(nodeId, status, CompletableFuture.completedFuture(null));
  }

  /**
   * @param starting the node's start, which must not fail meanwhile
   */
  private static Answer awaitReadyStatus(int nodeId, int status, CompletableFuture<Void> starting)
      throws Exception {
    while (true) {
      if (starting.isCompletedExceptionally()) {
        starting.join(); // throws why the node did not start
      }
      Answer answer = ready(nodeId);
      if (answer != null && answer.status() == status) {
        return answer;
      }
      Thread.sleep(50); // the poll interval of a wait on a condition
    }
  }

  private static JsonNode check(JsonNode body, String name) {
    for (JsonNode check : body.get("checks")) {
      if (check.get("name").asText().equals(name)) {
        return check;
      }
    }
    throw new AssertionError("no check " + name + " in " + body);
  }

  @Test
  void readyIsFalseWithAReasonWhileABrokerCannotRegisterAndTrueOnceItServes() throws Exception {
    // Given three serving nodes, each ready
    for (int id : cluster.nodeIds()) {
      JsonNode body = JSON.readTree(awaitReadyStatus(id, 200).body());
      assertThat(body.get("status").asText()).isEqualTo("UP");
      assertThat(check(body, "unfenced").get("status").asText()).isEqualTo("UP");
    }

    // When every node stops and node 3 starts again alone
    cluster.stop(3);
    cluster.stop(2);
    cluster.stop(1);
    CompletableFuture<Void> node3 = CompletableFuture.runAsync(() -> cluster.restart(3));

    // Then, while it cannot register, its /ready is 503 and says why
    JsonNode starting = JSON.readTree(awaitReadyStatus(3, 503, node3).body());
    assertThat(starting.get("status").asText()).isEqualTo("DOWN");
    JsonNode registered = check(starting, "registered");
    assertThat(registered.get("status").asText()).isEqualTo("DOWN");
    assertThat(registered.get("reason").asText()).contains("not registered");
    assertThat(check(starting, "quorum-leader").get("reason").asText()).contains("no leader");
    assertThat(node3).isNotDone();

    // When node 2 starts too, giving the quorum a majority
    CompletableFuture<Void> node2 = CompletableFuture.runAsync(() -> cluster.restart(2));

    // Then both become ready once registered, unfenced and serving
    node3.get(120, TimeUnit.SECONDS);
    node2.get(120, TimeUnit.SECONDS);
    for (int id : new int[] {2, 3}) {
      JsonNode body = JSON.readTree(awaitReadyStatus(id, 200, id == 2 ? node2 : node3).body());
      assertThat(body.get("status").asText()).isEqualTo("UP");
      assertThat(check(body, "registered").get("status").asText()).isEqualTo("UP");
      assertThat(check(body, "listeners").get("status").asText()).isEqualTo("UP");
    }
    cluster.restart(1);
    assertThat(JSON.readTree(awaitReadyStatus(1, 200).body()).get("status").asText())
        .isEqualTo("UP");
  }
}
