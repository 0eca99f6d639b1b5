package io.brook.protocol.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.HeldRequests;
import io.brook.protocol.testing.SocketBuffers;
import io.brook.protocol.testing.TestHandlers;
import io.brook.protocol.testing.TestServer;
import io.netty.channel.ChannelOption;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The inter-node client against a real brook-protocol server on 127.0.0.1. */
class InterNodeClientIT {
  private static final int NODE_ID = 7;

  private InterNodeEventLoops loops;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void startLoops() {
    loops = InterNodeEventLoops.start(2);
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    loops.close();
  }

  private <T extends AutoCloseable> T closing(T c) {
    closeables.add(c);
    return c;
  }

  private InterNodeClient client(InterNodeClientConfig config) {
    return closing(new InterNodeClient(loops, config));
  }

  private static InterNodeClientConfig.Builder config() {
    return InterNodeClientConfig.builder("internode-test").bounds(8, 8).requestTimeoutMs(10_000);
  }

  private static Node node(int port) {
    return new Node(NODE_ID, "127.0.0.1", port);
  }

  private static RequestBuilder cluster() {
    return v -> new DescribeClusterRequestData();
  }

  private static Throwable failure(CompletableFuture<?> future) {
    assertThatThrownBy(() -> future.get(15, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
    return future.handle((r, e) -> e).join();
  }

  @Test
  void severalRequestsInFlightAreEachAnsweredWithTheirOwnResponse() throws Exception {
    HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
    TestServer server = closing(TestServer.start(ApiRegistry.of(held)));
    InterNodeClient client = client(config().build());

    List<CompletableFuture<NodeResponse>> futures = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      futures.add(client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster()));
    }
    List<HeldRequests.Held> requests = held.awaitHeld(4);
    assertThat(requests).hasSize(4);
    // Answered in reverse: each answer names the correlation id of the request it belongs to.
    for (int i = 3; i >= 0; i--) {
      HeldRequests.Held request = requests.get(i);
      request
          .response()
          .complete(
              new DescribeClusterResponseData()
                  .setClusterId("answer-to-" + request.context().correlationId()));
    }
    List<Integer> sentIds = new ArrayList<>();
    for (HeldRequests.Held request : requests) {
      sentIds.add(request.context().correlationId());
    }
    assertThat(sentIds).doesNotHaveDuplicates();
    for (int i = 0; i < 4; i++) {
      NodeResponse response = futures.get(i).get(10, TimeUnit.SECONDS);
      assertThat(response.body(DescribeClusterResponseData.class).clusterId())
          .isEqualTo("answer-to-" + sentIds.get(i));
    }
    assertThat(requests.get(0).context().clientId()).isEqualTo("internode-test");
  }

  @Test
  void theConnectionHasTheConfiguredReceiveBuffer() throws Exception {
    // Given: a receive buffer as replica.socket.receive.buffer.bytes gives a follower's fetches
    TestServer server =
        closing(
            TestServer.start(
                ApiRegistry.of(
                    TestHandlers.answering(
                        ApiKeys.DESCRIBE_CLUSTER, (c, r) -> new DescribeClusterResponseData()))));
    int receive = 70_000;
    InterNodeClient client = client(config().receiveBufferBytes(receive).build());

    // When: the client connects, for a request
    client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster()).get(10, TimeUnit.SECONDS);

    // Then
    io.netty.channel.Channel channel = client.channel(NODE_ID);
    assertThat(channel.config().getOption(ChannelOption.SO_RCVBUF))
        .isEqualTo(SocketBuffers.reportedFor(channel, receive, "rmem_max"));
  }

  @Test
  void requestGoesOutAtTheHighestVersionBothSidesKnow() throws Exception {
    short peerMax = 9;
    List<Short> seen = new ArrayList<>();
    TestServer server =
        closing(
            TestServer.start(
                ApiRegistry.of(
                    TestHandlers.answering(
                        ApiKeys.METADATA,
                        (short) 0,
                        peerMax,
                        (context, request) -> {
                          synchronized (seen) {
                            seen.add(context.apiVersion());
                          }
                          return new MetadataResponseData().setClusterId("c");
                        }))));
    InterNodeClient client = client(config().build());

    NodeResponse response =
        client
            .send(
                node(server.port()),
                ApiKeys.METADATA,
                v -> new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false))
            .get(10, TimeUnit.SECONDS);

    assertThat(response.apiVersion()).isEqualTo(peerMax);
    assertThat(response.body(MetadataResponseData.class).clusterId()).isEqualTo("c");
    synchronized (seen) {
      assertThat(seen).containsExactly(peerMax);
    }
    // An API the peer does not serve fails without a round trip, and the connection stays up.
    CompletableFuture<NodeResponse> acls =
        client.send(node(server.port()), ApiKeys.DESCRIBE_ACLS, v -> new DescribeAclsRequestData());
    assertThat(failure(acls)).isInstanceOf(UnsupportedVersionException.class);
    assertThat(client.status(NODE_ID).phase()).isEqualTo(ConnectionPhase.READY);
  }

  @Test
  void requestWithoutAnswerTimesOutAndTheNextOneReconnects() throws Exception {
    HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
    TestServer server =
        closing(
            TestServer.start(
                ApiRegistry.of(
                    held,
                    TestHandlers.answering(
                        ApiKeys.METADATA,
                        (c, r) -> new MetadataResponseData().setClusterId("m")))));
    InterNodeClient client = client(config().reconnectBackoff(10, 10).build());

    CompletableFuture<NodeResponse> unanswered =
        client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster(), 300);
    held.awaitHeld(1);

    assertThat(failure(unanswered))
        .isInstanceOf(TimeoutException.class)
        .hasMessageContaining("DESCRIBE_CLUSTER");
    // The connection was closed with it (a late answer could not be told from the next one's).
    assertThat(client.status(NODE_ID).failedAttempts()).isEqualTo(1);
    NodeResponse next =
        client
            .send(node(server.port()), ApiKeys.METADATA, v -> new MetadataRequestData())
            .get(10, TimeUnit.SECONDS);
    assertThat(next.body(MetadataResponseData.class).clusterId()).isEqualTo("m");
    assertThat(client.status(NODE_ID).failedAttempts()).isZero();
  }

  @Test
  void aCancelledRequestThePeerNeverAnswersStillFreesTheConnectionAtItsTimeout() throws Exception {
    HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
    TestServer server = closing(TestServer.start(ApiRegistry.of(held)));
    InterNodeClient client = client(config().bounds(1, 0).reconnectBackoff(10, 10).build());

    CompletableFuture<NodeResponse> abandoned =
        client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster(), 300);
    held.awaitHeld(1);
    abandoned.cancel(false);

    // Its slot would otherwise stay taken for good: the connection is closed at the timeout.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> client.status(NODE_ID).failedAttempts() == 1);
    CompletableFuture<NodeResponse> next =
        client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster());
    held.awaitHeld(2)
        .get(1)
        .response()
        .complete(new DescribeClusterResponseData().setClusterId("next"));
    assertThat(clusterId(next)).isEqualTo("next");
  }

  @Test
  void aSendFromTheResponseCallbackFindsTheSlotFree() throws Exception {
    // A follower's fetch loop sends its next fetch from the previous one's callback; with one
    // slot per connection that send must not be refused (it would back off for a second).
    HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
    TestServer server = closing(TestServer.start(ApiRegistry.of(held)));
    InterNodeClient client = client(config().bounds(1, 0).build());

    CompletableFuture<CompletableFuture<NodeResponse>> second = new CompletableFuture<>();
    client
        .send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster())
        .whenComplete(
            (response, error) ->
                second.complete(
                    client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster())));
    held.awaitHeld(1).get(0).response().complete(new DescribeClusterResponseData());

    CompletableFuture<NodeResponse> next = second.get(10, TimeUnit.SECONDS);
    assertThat(next).isNotCompletedExceptionally();
    held.awaitHeld(2)
        .get(1)
        .response()
        .complete(new DescribeClusterResponseData().setClusterId("next"));
    assertThat(clusterId(next)).isEqualTo("next");
  }

  @Test
  void peerClosingTheConnectionFailsEveryRequestInFlight() throws Exception {
    HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
    TestServer server = closing(TestServer.start(ApiRegistry.of(held)));
    InterNodeClient client = client(config().build());

    List<CompletableFuture<NodeResponse>> futures = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      futures.add(client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster()));
    }
    held.awaitHeld(3);
    server.server().close(Duration.ZERO);

    for (CompletableFuture<NodeResponse> future : futures) {
      assertThat(failure(future))
          .isInstanceOf(DisconnectException.class)
          .hasMessageContaining("node " + NODE_ID);
    }
    assertThat(client.status(NODE_ID).phase()).isIn(ConnectionPhase.BACKOFF, ConnectionPhase.IDLE);
  }

  @Test
  void reconnectBackoffAndSetupTimeoutGrowWithConsecutiveFailures() throws Exception {
    int refusingPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      refusingPort = socket.getLocalPort(); // closed again: connections are refused
    }
    InterNodeClient client =
        client(
            config().reconnectBackoff(100, 60_000).connectionSetupTimeout(1_000, 60_000).build());

    List<Long> backoffs = new ArrayList<>();
    List<Long> setupTimeouts = new ArrayList<>();
    for (int attempt = 1; attempt <= 4; attempt++) {
      CompletableFuture<NodeResponse> future =
          client.send(node(refusingPort), ApiKeys.DESCRIBE_CLUSTER, cluster());
      assertThat(failure(future))
          .isInstanceOf(DisconnectException.class)
          .hasMessageContaining("cannot connect");
      ConnectionStatus status = client.status(NODE_ID);
      assertThat(status.failedAttempts()).isEqualTo(attempt);
      backoffs.add(status.reconnectBackoffMs());
      setupTimeouts.add(status.setupTimeoutMs());
    }
    // Doubling with 20% jitter (kafka-clients' ExponentialBackoff).
    for (int i = 0; i < 4; i++) {
      long backoff = 100L << i;
      assertThat(backoffs.get(i)).isBetween(backoff * 8 / 10, backoff * 12 / 10);
      // The set-up timeout of attempt n+1 follows n failures.
      long setup = 1_000L << i;
      assertThat(setupTimeouts.get(i)).isBetween(setup * 8 / 10, setup * 12 / 10);
    }
  }

  @Test
  void peerThatNeverAnswersApiVersionsFailsTheSetupTimeout() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      InterNodeClient client = client(config().connectionSetupTimeout(300, 300).build());
      CompletableFuture<NodeResponse> future =
          client.send(node(silent.getLocalPort()), ApiKeys.DESCRIBE_CLUSTER, cluster());
      try (Socket accepted = silent.accept()) {
        assertThat(failure(future))
            .isInstanceOf(DisconnectException.class)
            .hasMessageContaining("set-up");
        assertThat(accepted.getInputStream().read(new byte[64])).isPositive(); // the ApiVersions
      }
    }
  }

  @Test
  void sendsBeyondTheQueueBoundAreRefusedAtOnce() throws Exception {
    HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
    TestServer server = closing(TestServer.start(ApiRegistry.of(held)));
    InterNodeClient client = client(config().bounds(1, 2).build());

    List<CompletableFuture<NodeResponse>> accepted = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      accepted.add(client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster()));
    }
    CompletableFuture<NodeResponse> refused =
        client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster());
    assertThat(refused).isCompletedExceptionally();
    assertThat(failure(refused)).isInstanceOf(RequestQueueFullException.class);

    // One in flight at a time: the server sees the second only after the first is answered.
    List<HeldRequests.Held> first = held.awaitHeld(1);
    assertThat(held.size()).isEqualTo(1);
    first.get(0).response().complete(new DescribeClusterResponseData().setClusterId("1"));
    accepted.get(0).get(10, TimeUnit.SECONDS);
    // Its slot is free again.
    CompletableFuture<NodeResponse> later =
        client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster());
    assertThat(later).isNotCompletedExceptionally();
    for (int i = 1; i <= 3; i++) {
      HeldRequests.Held next = held.awaitHeld(i + 1).get(i);
      next.response().complete(new DescribeClusterResponseData().setClusterId("n"));
    }
    later.get(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> accepted.stream().allMatch(f -> f.isDone()));
  }

  @Test
  void aNodeThatMovedIsReachedAtItsNewAddress() throws Exception {
    TestServer before = closing(TestServer.start(ApiRegistry.of(clusterIdAnswer("before"))));
    TestServer after = closing(TestServer.start(ApiRegistry.of(clusterIdAnswer("after"))));
    InterNodeClient client = client(config().build());

    assertThat(clusterId(client.send(node(before.port()), ApiKeys.DESCRIBE_CLUSTER, cluster())))
        .isEqualTo("before");
    assertThat(clusterId(client.send(node(after.port()), ApiKeys.DESCRIBE_CLUSTER, cluster())))
        .isEqualTo("after");
    assertThat(client.status(NODE_ID).failedAttempts()).isZero();
  }

  @Test
  void aResponseLargerThanTheBoundClosesTheConnectionUnread() throws Exception {
    HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
    TestServer server = closing(TestServer.start(ApiRegistry.of(held)));
    // Room for this server's ApiVersions answer, not for a 200-byte cluster id.
    InterNodeClient client = client(config().maxResponseBytes(150).build());

    CompletableFuture<NodeResponse> future =
        client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster());
    held.awaitHeld(1)
        .get(0)
        .response()
        .complete(new DescribeClusterResponseData().setClusterId("x".repeat(200)));
    assertThat(failure(future))
        .isInstanceOf(DisconnectException.class)
        .hasStackTraceContaining("outside [4, 150]");
  }

  private static io.brook.protocol.ApiHandler clusterIdAnswer(String clusterId) {
    return TestHandlers.answering(
        ApiKeys.DESCRIBE_CLUSTER,
        (c, r) -> new DescribeClusterResponseData().setClusterId(clusterId));
  }

  private static String clusterId(CompletableFuture<NodeResponse> future) throws Exception {
    return future.get(10, TimeUnit.SECONDS).body(DescribeClusterResponseData.class).clusterId();
  }

  @Test
  void closedClientFailsWhatItCarries() throws Exception {
    HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
    TestServer server = closing(TestServer.start(ApiRegistry.of(held)));
    InterNodeClient client = new InterNodeClient(loops, config().build());
    CompletableFuture<NodeResponse> future =
        client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster());
    held.awaitHeld(1);
    client.close();
    assertThat(failure(future)).isInstanceOf(DisconnectException.class);
    assertThat(failure(client.send(node(server.port()), ApiKeys.DESCRIBE_CLUSTER, cluster())))
        .isInstanceOf(DisconnectException.class);
  }

  @Test
  void unsupportedSecurityProtocolIsRefusedAtConstruction() {
    assertThatThrownBy(
            () ->
                new InterNodeClient(
                    loops,
                    new InterNodeClientConfig(
                        "x",
                        org.apache.kafka.common.security.auth.SecurityProtocol.SSL,
                        10_000,
                        30_000,
                        50,
                        1_000,
                        30_000,
                        1,
                        1,
                        1 << 20,
                        -1,
                        null,
                        null)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
