package io.brook.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.EmbeddedBrook;
import io.brook.testports.PortAllocator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One JDK {@link HttpClient} keeps its keep-alive connection to the admin listener across restarts
 * of the node on the same admin port ({@code BrookServer.close()} then a new server). The stopped
 * node's connections must end, so the client opens a new one to the new node instead of waiting on
 * the old one. (A process stopped with SIGTERM behaves the same; it was checked once and is left
 * out of the suite for its start-up time.)
 */
@Timeout(180)
class AdminRestartKeepAliveIT {
  @TempDir Path dir;

  @Test
  void oneClientKeepsWorkingAcrossAnInProcessRestart() throws Exception {
    int adminPort = PortAllocator.shared().allocate();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    try (EmbeddedBrook brook =
        EmbeddedBrook.builder()
            .dataDir(dir)
            .config("brook.admin.listener", "http://127.0.0.1:" + adminPort)
            .start()) {
      assertThat(health(http, adminPort).statusCode()).isEqualTo(200);

      // When the node restarts on the same admin port
      brook.restart();

      // Then the same client (its pooled keep-alive connection) gets an answer from the new node
      assertThat(health(http, adminPort).statusCode()).isEqualTo(200);
      assertThat(brook.server().adminPort()).isEqualTo(adminPort);
    }
  }

  /** A bounded wait: a client stuck on a dead connection fails the test instead of hanging it. */
  private static HttpResponse<String> health(HttpClient http, int port) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
            .timeout(Duration.ofSeconds(15))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
