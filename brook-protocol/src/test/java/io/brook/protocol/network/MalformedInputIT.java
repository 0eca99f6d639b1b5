package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.TestHandlers;
import io.brook.protocol.testing.TestServer;
import io.brook.protocol.testing.WireClient;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile and broken input over real sockets. Every test ends by checking that a new connection is
 * still served correctly: one bad connection must not affect others.
 */
class MalformedInputIT {
  private static final int MAX_REQUEST_BYTES = 1024;

  private final ApiRegistry registry =
      ApiRegistry.of(
          TestHandlers.answering(
              ApiKeys.DESCRIBE_CLUSTER,
              (short) 1,
              (short) 2,
              (c, r) -> new DescribeClusterResponseData().setClusterId("c")));
  private TestServer server;

  @BeforeEach
  void start() {
    server = TestServer.start(registry, s -> s.socketRequestMaxBytes(MAX_REQUEST_BYTES));
  }

  @AfterEach
  void stop() throws Exception {
    server.assertStillServes();
    server.close();
  }

  @ParameterizedTest
  @ValueSource(longs = {1L, 2L, 3L, 20261129L, -7L})
  void randomBytesCloseTheConnection(long seed) throws Exception {
    // Given
    Random random = new Random(seed);
    byte[] garbage = new byte[200];
    random.nextBytes(garbage);

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(garbage);
      client.shutdownOutput();

      // Then
      client.assertClosedByServer();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1L, 2L, 3L, 20261129L, -7L})
  void randomFrameOfValidLengthClosesTheConnection(long seed) throws Exception {
    // Given: a well-formed length prefix around random content
    Random random = new Random(seed);
    byte[] payload = new byte[10 + random.nextInt(100)];
    random.nextBytes(payload);

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(WireClient.frame(payload));

      // Then
      client.assertClosedByServer();
    }
  }

  @Test
  void truncatedFrameThenPeerClose() throws Exception {
    // Given: a frame announcing 100 bytes, only 20 of them sent
    byte[] partial = ByteBuffer.allocate(24).putInt(100).put(new byte[20]).array();

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(partial);
      client.shutdownOutput();

      // Then
      client.assertClosedByServer();
    }
  }

  @ParameterizedTest
  @ValueSource(
      ints = {1 << 30, Integer.MAX_VALUE, MAX_REQUEST_BYTES + 1, -1, Integer.MIN_VALUE, 0, 9})
  void badLengthPrefixIsRefusedAsSoonAsItArrives(int length) throws Exception {
    try (WireClient client = server.connect()) {
      // When: only the 4 length bytes are sent, nothing of the frame
      client.sendRaw(ByteBuffer.allocate(4).putInt(length).array());

      // Then: closed without waiting for the announced bytes
      client.assertClosedByServer();
    }
  }

  @Test
  void frameOfExactlyTheMaximumIsServed() throws Exception {
    // Given: ApiVersions v0 (header v1, empty body) padded with a client id to exactly the maximum
    String clientId = "x".repeat(MAX_REQUEST_BYTES - 10);
    byte[] request = WireClient.encodeRequest(new ApiVersionsRequestData(), (short) 0, 7, clientId);
    assertThat(request.length).isEqualTo(4 + MAX_REQUEST_BYTES);

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(request);

      // Then
      WireClient.Response response = client.receive(ApiKeys.API_VERSIONS, (short) 0);
      assertThat(response.correlationId()).isEqualTo(7);
      assertThat(response.as(ApiVersionsResponseData.class).errorCode()).isZero();
    }
  }

  @Test
  void frameOneByteAboveTheMaximumIsRefused() throws Exception {
    // Given
    String clientId = "x".repeat(MAX_REQUEST_BYTES - 10 + 1);
    byte[] request = WireClient.encodeRequest(new ApiVersionsRequestData(), (short) 0, 7, clientId);

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(request);

      // Then
      client.assertClosedByServer();
    }
  }

  @Test
  void unknownApiKeyClosesTheConnection() throws Exception {
    // Given: header v1 with api key 32000
    byte[] payload =
        ByteBuffer.allocate(10)
            .putShort((short) 32000)
            .putShort((short) 0)
            .putInt(1)
            .putShort((short) -1)
            .array();

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(WireClient.frame(payload));

      // Then
      client.assertClosedByServer();
    }
  }

  @Test
  void apiWithoutHandlerGetsItsErrorResponseAndTheConnectionStaysOpen() throws Exception {
    try (WireClient client = server.connect()) {
      // When
      ListGroupsResponseData response =
          client
              .roundTrip(new ListGroupsRequestData(), ApiKeys.LIST_GROUPS.latestVersion())
              .as(ListGroupsResponseData.class);

      // Then
      assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
      assertThat(
              client
                  .roundTrip(new ApiVersionsRequestData(), (short) 0)
                  .as(ApiVersionsResponseData.class)
                  .errorCode())
          .isZero();
    }
  }

  @Test
  void versionBelowTheHandlersRangeGetsUnsupportedVersion() throws Exception {
    try (WireClient client = server.connect()) {
      // When: DescribeCluster v0, the handler serves 1..2
      DescribeClusterResponseData response =
          client
              .roundTrip(new DescribeClusterRequestData(), (short) 0)
              .as(DescribeClusterResponseData.class);

      // Then
      assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
    }
  }

  @Test
  void versionUnknownToKafkaClientsClosesTheConnection() throws Exception {
    // Given: DescribeCluster v99 (header v2), body in the v2 layout
    byte[] request =
        WireClient.encodeRequest(
            ApiKeys.DESCRIBE_CLUSTER,
            (short) 99,
            (short) 2,
            5,
            "c",
            new DescribeClusterRequestData(),
            (short) 2);

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(request);

      // Then
      client.assertClosedByServer();
    }
  }

  @Test
  void trailingBytesAfterTheBodyCloseTheConnection() throws Exception {
    // Given: a valid ApiVersions v3 request with 5 extra bytes inside its frame
    byte[] valid =
        WireClient.encodeRequest(
            new ApiVersionsRequestData().setClientSoftwareName("a").setClientSoftwareVersion("1"),
            (short) 3,
            3,
            "c");
    byte[] payload = Arrays.copyOfRange(valid, 4, valid.length + 5);

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(WireClient.frame(payload));

      // Then
      client.assertClosedByServer();
    }
  }

  @Test
  void bodyShorterThanItsFieldsClosesTheConnection() throws Exception {
    // Given: a valid ApiVersions v3 request with its last 3 bytes cut off, frame length adjusted
    byte[] valid =
        WireClient.encodeRequest(
            new ApiVersionsRequestData()
                .setClientSoftwareName("software")
                .setClientSoftwareVersion("1.0"),
            (short) 3,
            3,
            "c");
    byte[] payload = Arrays.copyOfRange(valid, 4, valid.length - 3);

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(WireClient.frame(payload));

      // Then
      client.assertClosedByServer();
    }
  }

  @Test
  void aBadConnectionDoesNotDisturbAnotherOneInFlight() throws Exception {
    try (WireClient good = server.connect();
        WireClient bad = server.connect()) {
      // Given: the good connection is mid-conversation
      assertThat(good.roundTrip(new ApiVersionsRequestData(), (short) 0).correlationId())
          .isEqualTo(1);

      // When
      bad.sendRaw(ByteBuffer.allocate(4).putInt(-5).array());
      bad.assertClosedByServer();

      // Then
      assertThat(
              good.roundTrip(new ApiVersionsRequestData(), (short) 1)
                  .as(ApiVersionsResponseData.class)
                  .errorCode())
          .isZero();
    }
  }
}
