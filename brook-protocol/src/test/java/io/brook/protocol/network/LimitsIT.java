package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.HeldRequests;
import io.brook.protocol.testing.TestServer;
import io.brook.protocol.testing.WireClient;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/** Connection limits, idle timeout, per-connection backpressure and the request-memory budget. */
class LimitsIT {
  private static final String USED = "kafka.network:type=SocketServer,name=MemoryPoolUsed";
  private static final String AVAILABLE =
      "kafka.network:type=SocketServer,name=MemoryPoolAvailable";

  /** The frame length of a DescribeCluster v1 request as {@link WireClient#send} writes it. */
  private static final int DESCRIBE_CLUSTER_FRAME =
      WireClient.encodeRequest(new DescribeClusterRequestData(), (short) 1, 1, WireClient.CLIENT_ID)
              .length
          - 4;

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
  void anOverrideForTheClientsAddressReplacesThePerIpLimit() throws Exception {
    try (TestServer server =
            TestServer.start(
                registry,
                s ->
                    s.maxConnectionsPerIp(100)
                        .maxConnectionsPerIpOverrides(java.util.Map.of("127.0.0.1", 1)));
        WireClient first = server.connect()) {
      assertAnswers(first);

      try (WireClient second = server.connect()) {
        second.assertClosedByServer();
      }
    }
  }

  @Test
  void aConnectionBeyondTheTotalLimitWaitsUnreadUntilOneCloses() throws Exception {
    try (TestServer server = TestServer.start(registry, s -> s.maxConnections(1))) {
      WireClient first = server.connect();
      assertAnswers(first);

      // When a second client connects and sends a request over the limit
      try (WireClient second = server.connect()) {
        int correlationId = second.send(new ApiVersionsRequestData(), (short) 0);
        assertAnswers(first);
        assertThat(server.server().connectionLimiter().connections()).isEqualTo(1);

        // Then it is served, request included, once the first closes
        first.close();
        assertThat(second.receive(ApiKeys.API_VERSIONS, (short) 0).correlationId())
            .isEqualTo(correlationId);
        assertAnswers(second);
      }
    }
  }

  @Test
  void aListenersLimitHoldsItsConnectionsWhileOtherListenersServe() throws Exception {
    AcceptLimits limits =
        new AcceptLimits(
            Integer.MAX_VALUE,
            Map.of(TestServer.LISTENER, new AcceptLimits.ListenerLimits(1, Integer.MAX_VALUE)),
            null);
    try (TestServer server =
            TestServer.start(
                registry, s -> s.listener("OTHER", "127.0.0.1", 0).acceptLimits(limits));
        WireClient onOther = WireClient.connect(server.server().boundPort("OTHER"));
        WireClient alsoOnOther = WireClient.connect(server.server().boundPort("OTHER"))) {
      WireClient first = server.connect();
      assertAnswers(first);

      try (WireClient second = server.connect()) {
        int correlationId = second.send(new ApiVersionsRequestData(), (short) 0);
        // The other listener is not limited
        assertAnswers(onOther);
        assertAnswers(alsoOnOther);
        assertThat(server.server().connectionLimiter().listenerConnections(TestServer.LISTENER))
            .isEqualTo(1);

        first.close();
        assertThat(second.receive(ApiKeys.API_VERSIONS, (short) 0).correlationId())
            .isEqualTo(correlationId);
      }
    }
  }

  @Test
  void interBrokerConnectionsOverTheTotalCloseTheLeastRecentlyUsedClientConnection()
      throws Exception {
    String replication = "REPLICATION";
    AcceptLimits limits = new AcceptLimits(Integer.MAX_VALUE, Map.of(), replication);
    try (TestServer server =
            TestServer.start(
                registry,
                s ->
                    s.listener(replication, "127.0.0.1", 0)
                        .maxConnections(2)
                        .acceptLimits(limits));
        WireClient leastRecentlyUsed = server.connect();
        WireClient recentlyUsed = server.connect()) {
      assertAnswers(leastRecentlyUsed);
      assertAnswers(recentlyUsed);

      // When: a broker connects on the exempt inter-broker listener, taking the node over 2
      try (WireClient broker = WireClient.connect(server.server().boundPort(replication))) {
        assertAnswers(broker);

        // Then: the client connection used least recently is closed, the others serve on
        leastRecentlyUsed.assertClosedByServer();
        assertAnswers(recentlyUsed);
        assertAnswers(broker);
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> server.server().connectionLimiter().connections() == 2);
      }
    }
  }

  @Test
  void connectionsOverTheCreationRateAreServedLate() throws Exception {
    AcceptLimits oneASecond = new AcceptLimits(1, Map.of(), null);
    try (TestServer server = TestServer.start(registry, s -> s.acceptLimits(oneASecond));
        WireClient first = server.connect();
        WireClient second = server.connect()) {
      assertAnswers(first);
      // The second waits for its turn (a second after the first), then is served
      assertAnswers(second);
      assertThat(server.server().connectionLimiter().throttledConnections()).isEqualTo(1);
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
      assertAThirdRequestWaitsUntilOneOfTwoIsAnswered(client);
    }
  }

  @Test
  void requestMemoryHeldByOneConnectionStopsAnotherUntilItIsReleased() throws Exception {
    try (TestServer server =
            TestServer.start(registry, s -> s.queuedMaxRequestBytes(2L * DESCRIBE_CLUSTER_FRAME));
        WireClient holder = server.connect();
        WireClient waiter = server.connect()) {
      // Given: the first connection's two requests hold the whole budget
      List<HeldRequests.Held> first = sendTwo(holder);
      assertThat(gauge(USED)).isEqualTo(2L * DESCRIBE_CLUSTER_FRAME);
      assertThat(gauge(AVAILABLE)).isZero();

      // When: another connection sends one
      int waiting = waiter.send(new DescribeClusterRequestData(), (short) 1);

      // Then: it is not read while the memory is taken
      assertStillOnlyTwoRead();

      // And when one of the first connection's requests is answered, it gets through
      first.get(0).response().complete(new DescribeClusterResponseData());
      List<HeldRequests.Held> all = held.awaitHeld(3);
      all.get(2).response().complete(new DescribeClusterResponseData());
      assertThat(waiter.receive(ApiKeys.DESCRIBE_CLUSTER, (short) 1).correlationId())
          .isEqualTo(waiting);
      first.get(1).response().complete(new DescribeClusterResponseData());
      await().atMost(Duration.ofSeconds(5)).until(() -> gauge(USED) == 0L);
      assertThat(gauge(AVAILABLE)).isEqualTo(2L * DESCRIBE_CLUSTER_FRAME);
    }
  }

  @Test
  void aFrameLargerThanTheWholeBudgetIsRefusedAndOthersAreStillServed() throws Exception {
    try (TestServer server =
            TestServer.start(
                registry, s -> s.socketRequestMaxBytes(1 << 20).queuedMaxRequestBytes(4096));
        WireClient client = server.connect()) {
      // When: a length that fits socket.request.max.bytes but never the budget
      client.sendRaw(ByteBuffer.allocate(4).putInt(4097).array());

      // Then
      client.assertClosedByServer();
      server.assertStillServes();
    }
  }

  @Test
  void readingStopsAtThePerConnectionByteBoundAndResumesWhenAnswered() throws Exception {
    try (TestServer server =
            TestServer.start(
                registry, s -> s.queuedMaxRequestBytesPerConnection(2L * DESCRIBE_CLUSTER_FRAME));
        WireClient client = server.connect()) {
      assertAThirdRequestWaitsUntilOneOfTwoIsAnswered(client);
    }
  }

  /** With two requests in flight on {@code client}, a third is read only once one is answered. */
  private void assertAThirdRequestWaitsUntilOneOfTwoIsAnswered(WireClient client) throws Exception {
    // Given: two requests in flight, the limit
    List<HeldRequests.Held> first = sendTwo(client);

    // When: a third arrives
    client.send(new DescribeClusterRequestData(), (short) 1);

    // Then: it is not read while two are in flight
    assertStillOnlyTwoRead();

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

  @Test
  void aFrameNotReceivedWholeInTimeClosesItsConnectionAndGivesItsMemoryBack() throws Exception {
    try (TestServer server = TestServer.start(registry, s -> s.requestReceiveTimeoutMs(300));
        WireClient client = server.connect()) {
      // Given: a frame's prefix and a few of its bytes, then nothing
      client.sendRaw(ByteBuffer.allocate(14).putInt(1000).put(new byte[10]).array());
      await().atMost(Duration.ofSeconds(5)).until(() -> gauge(USED) == 1000L);

      // Then: the connection is closed and the memory released
      client.assertClosedByServer();
      await().atMost(Duration.ofSeconds(5)).until(() -> gauge(USED) == 0L);
      server.assertStillServes();
    }
  }

  private List<HeldRequests.Held> sendTwo(WireClient client) throws Exception {
    client.send(new DescribeClusterRequestData(), (short) 1);
    client.send(new DescribeClusterRequestData(), (short) 1);
    return held.awaitHeld(2);
  }

  private void assertStillOnlyTwoRead() {
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> held.size() == 2);
  }

  private static long gauge(String name) throws Exception {
    return (Long)
        ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(name), "Value");
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
