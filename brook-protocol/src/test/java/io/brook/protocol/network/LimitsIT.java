package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.HeldRequests;
import io.brook.protocol.testing.TestServer;
import io.brook.protocol.testing.WireClient;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/** Connection limits, idle timeout and per-connection backpressure. */
class LimitsIT {
  private final HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
  private final ApiRegistry registry = ApiRegistry.of(held);

  @Test
  void connectionsBeyondThePerIpLimitAreClosed() throws Exception {
    try (TestServer server = TestServer.start(registry, s -> s.maxConnectionsPerIp(2));
        WireClient second = server.connect()) {
      WireClient first = server.connect();
      assertAnswers(first);
      assertAnswers(second);

      // When
      try (WireClient third = server.connect()) {
        // Then
        third.assertClosedByServer();
      }

      // And when one closes, a new connection is admitted again
      first.close();
      await().atMost(Duration.ofSeconds(5)).until(() -> server.server().connectionCount() == 1);
      try (WireClient again = server.connect()) {
        assertAnswers(again);
      }
    }
  }

  @Test
  void connectionsBeyondTheTotalLimitAreClosed() throws Exception {
    try (TestServer server = TestServer.start(registry, s -> s.maxConnections(1));
        WireClient first = server.connect()) {
      assertAnswers(first);

      try (WireClient second = server.connect()) {
        second.assertClosedByServer();
      }
      assertAnswers(first);
    }
  }

  @Test
  void idleConnectionsAreClosed() throws Exception {
    try (TestServer server = TestServer.start(registry, s -> s.connectionsMaxIdleMs(300));
        WireClient client = server.connect()) {
      // Given
      assertAnswers(client);

      // When: nothing happens for longer than connections.max.idle.ms
      // Then
      client.assertClosedByServer();
    }
  }

  @Test
  void aConnectionWaitingForAResponseIsNotIdle() throws Exception {
    try (TestServer server = TestServer.start(registry, s -> s.connectionsMaxIdleMs(200));
        WireClient client = server.connect()) {
      // Given: a request held for longer than the idle timeout
      int correlationId = client.send(new DescribeClusterRequestData(), (short) 1);
      HeldRequests.Held request = held.awaitHeld(1).get(0);
      assertThat(client.isClosedByServer(600)).isFalse();

      // When
      request.response().complete(new DescribeClusterResponseData());

      // Then
      assertThat(client.receive(ApiKeys.DESCRIBE_CLUSTER, (short) 1).correlationId())
          .isEqualTo(correlationId);
    }
  }

  @Test
  void readingStopsAtQueuedMaxRequestsAndResumesWhenAnswered() throws Exception {
    try (TestServer server = TestServer.start(registry, s -> s.queuedMaxRequests(2));
        WireClient client = server.connect()) {
      // Given: two requests in flight, the limit
      client.send(new DescribeClusterRequestData(), (short) 1);
      client.send(new DescribeClusterRequestData(), (short) 1);
      List<HeldRequests.Held> first = held.awaitHeld(2);

      // When: a third arrives
      client.send(new DescribeClusterRequestData(), (short) 1);

      // Then: it is not read while two are in flight
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(2))
          .until(() -> held.size() == 2);

      // And when one is answered, reading resumes
      first.get(0).response().complete(new DescribeClusterResponseData());
      List<HeldRequests.Held> all = held.awaitHeld(3);
      first.get(1).response().complete(new DescribeClusterResponseData());
      all.get(2).response().complete(new DescribeClusterResponseData());
      for (int expected = 1; expected <= 3; expected++) {
        assertThat(client.receive(ApiKeys.DESCRIBE_CLUSTER, (short) 1).correlationId())
            .isEqualTo(expected);
      }
    }
  }

  private static void assertAnswers(WireClient client) throws Exception {
    assertThat(
            client
                .roundTrip(new ApiVersionsRequestData(), (short) 0)
                .as(ApiVersionsResponseData.class)
                .errorCode())
        .isZero();
  }
}
