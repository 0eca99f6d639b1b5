package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.HeldRequests;
import io.brook.protocol.testing.TestServer;
import io.brook.protocol.testing.WireClient;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/** Graceful close: stop accepting, let responses in flight go out, then close. */
class ShutdownIT {
  private final HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);

  @Test
  void responsesInFlightGoOutBeforeConnectionsClose() throws Exception {
    TestServer server = TestServer.start(ApiRegistry.of(held));
    int port = server.port();
    try (WireClient client = server.connect()) {
      // Given: a request in flight
      int correlationId = client.send(new DescribeClusterRequestData(), (short) 1);
      HeldRequests.Held request = held.awaitHeld(1).get(0);

      // When: the server closes, and the handler answers while it drains
      CompletableFuture<Void> closing =
          CompletableFuture.runAsync(() -> server.server().close(Duration.ofSeconds(5)));
      await().atMost(Duration.ofSeconds(5)).until(() -> refusesConnections(port));
      request.response().complete(new DescribeClusterResponseData().setClusterId("last"));

      // Then: the answer arrives, then the connection closes and close() returns
      WireClient.Response response = client.receive(ApiKeys.DESCRIBE_CLUSTER, (short) 1);
      assertThat(response.correlationId()).isEqualTo(correlationId);
      assertThat(response.as(DescribeClusterResponseData.class).clusterId()).isEqualTo("last");
      client.assertClosedByServer();
      closing.get();
    }
  }

  @Test
  void connectionsAreClosedWhenTheDrainTimesOut() throws Exception {
    TestServer server = TestServer.start(ApiRegistry.of(held));
    try (WireClient client = server.connect()) {
      // Given: a request that is never answered
      client.send(new DescribeClusterRequestData(), (short) 1);
      held.awaitHeld(1);

      // When
      long start = System.nanoTime();
      server.server().close(Duration.ofMillis(300));

      // Then
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      client.assertClosedByServer();
      server.server().close();
    }
  }

  private static boolean refusesConnections(int port) {
    try {
      new Socket("127.0.0.1", port).close();
      return false;
    } catch (ConnectException e) {
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
