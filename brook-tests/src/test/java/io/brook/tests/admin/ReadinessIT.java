package io.brook.tests.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.testkit.EmbeddedBrook;
import io.brook.testports.PortAllocator;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker-only node whose controller never answers cannot register: while it waits, its admin
 * listener (started first) answers {@code /ready} 503 naming the failing checks, and {@code
 * /health} 200 (the process is fine).
 */
@Timeout(120)
class ReadinessIT {
  @TempDir Path dir;

  @Test
  void aBrokerThatCannotRegisterIsNotReady() throws Exception {
    // Given a broker whose only controller voter is a port nobody listens on
    int deadController = PortAllocator.shared().allocate();
    int admin = PortAllocator.shared().allocate();
    CompletableFuture<EmbeddedBrook> starting =
        CompletableFuture.supplyAsync(
            () ->
                EmbeddedBrook.builder()
                    .dataDir(dir)
                    .config("node.id", "2")
                    .config("process.roles", "broker")
                    .config("listeners", "PLAINTEXT://127.0.0.1:0")
                    .config("advertised.listeners", "PLAINTEXT://127.0.0.1:0")
                    .config(
                        "listener.security.protocol.map",
                        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT")
                    .config("inter.broker.listener.name", "PLAINTEXT")
                    .config("controller.quorum.voters", "1@127.0.0.1:" + deadController)
                    .config("initial.broker.registration.timeout.ms", "5000")
                    .config("brook.admin.listener", "http://127.0.0.1:" + admin)
                    .start());
    HttpClient http = HttpClient.newHttpClient();
    try {
      // When it is starting, Then /ready is 503 and says why
      HttpResponse<String> ready =
          await()
              .atMost(Duration.ofSeconds(30))
              .ignoreExceptionsInstanceOf(ConnectException.class)
              .until(() -> get(http, admin, "/ready"), r -> r != null);
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body())
          .contains("\"name\":\"registered\",\"status\":\"DOWN\"")
          .contains("\"name\":\"unfenced\",\"status\":\"DOWN\"");
      assertThat(get(http, admin, "/health").statusCode()).isEqualTo(200);
    } finally {
      // It gives up when the registration timeout passes
      try {
        starting.get(60, TimeUnit.SECONDS).close();
      } catch (java.util.concurrent.ExecutionException expected) {
        // the start failed, as it must without a controller
      }
    }
  }

  private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
