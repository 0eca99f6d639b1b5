package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.HeldRequests;
import io.brook.protocol.testing.TestServer;
import io.brook.protocol.testing.WireClient;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Pipelined requests completing out of order are still answered in request order. */
class OrderingIT {
  private static final short VERSION = 2;

  private final HeldRequests held = new HeldRequests(ApiKeys.DESCRIBE_CLUSTER);
  private TestServer server;

  @BeforeEach
  void start() {
    server = TestServer.start(ApiRegistry.of(held));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void requestsCompletedInReverseOrderAreAnsweredInRequestOrder() throws Exception {
    try (WireClient client = server.connect()) {
      // Given: five pipelined requests, all held by the handler
      List<Integer> sent = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        sent.add(client.send(new DescribeClusterRequestData(), VERSION));
      }
      List<HeldRequests.Held> requests = held.awaitHeld(5);

      // When: completed last to first, from the test thread
      for (int i = requests.size() - 1; i >= 0; i--) {
        HeldRequests.Held request = requests.get(i);
        request
            .response()
            .complete(
                new DescribeClusterResponseData()
                    .setClusterId("answer-" + request.context().correlationId()));
      }

      // Then
      List<Integer> received = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        WireClient.Response response = client.receive(ApiKeys.DESCRIBE_CLUSTER, VERSION);
        received.add(response.correlationId());
        assertThat(response.as(DescribeClusterResponseData.class).clusterId())
            .isEqualTo("answer-" + response.correlationId());
      }
      assertThat(received).isEqualTo(sent);
    }
  }

  @Test
  void aRequestWithoutResponseKeepsTheOthersInOrder() throws Exception {
    try (WireClient client = server.connect()) {
      // Given
      int first = client.send(new DescribeClusterRequestData(), VERSION);
      int silent = client.send(new DescribeClusterRequestData(), VERSION);
      int third = client.send(new DescribeClusterRequestData(), VERSION);
      List<HeldRequests.Held> requests = held.awaitHeld(3);
      assertThat(requests.get(1).context().correlationId()).isEqualTo(silent);

      // When: the third completes first, then the middle one with no response, then the first
      requests.get(2).response().complete(new DescribeClusterResponseData().setClusterId("3"));
      requests.get(1).response().complete(null);
      requests.get(0).response().complete(new DescribeClusterResponseData().setClusterId("1"));

      // Then
      assertThat(client.receive(ApiKeys.DESCRIBE_CLUSTER, VERSION).correlationId())
          .isEqualTo(first);
      assertThat(client.receive(ApiKeys.DESCRIBE_CLUSTER, VERSION).correlationId())
          .isEqualTo(third);
      WireClient.Response next = client.roundTrip(new ApiVersionsRequestData(), (short) 0);
      assertThat(next.as(ApiVersionsResponseData.class).errorCode()).isZero();
    }
  }

  @Test
  void anApiVersionsAnsweredAtOnceWaitsBehindAnEarlierHeldRequest() throws Exception {
    try (WireClient client = server.connect()) {
      // Given: a held request, then ApiVersions, which the network layer answers immediately
      int held1 = client.send(new DescribeClusterRequestData(), VERSION);
      int apiVersions = client.send(new ApiVersionsRequestData(), (short) 0);
      List<HeldRequests.Held> requests = held.awaitHeld(1);
      assertThat(client.isClosedByServer(200)).as("nothing may arrive yet").isFalse();

      // When
      requests.get(0).response().complete(new DescribeClusterResponseData());

      // Then
      assertThat(client.receive(ApiKeys.DESCRIBE_CLUSTER, VERSION).correlationId())
          .isEqualTo(held1);
      assertThat(client.receive(ApiKeys.API_VERSIONS, (short) 0).correlationId())
          .isEqualTo(apiVersions);
    }
  }
}
