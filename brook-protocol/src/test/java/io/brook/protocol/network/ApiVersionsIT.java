package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.TestHandlers;
import io.brook.protocol.testing.TestServer;
import io.brook.protocol.testing.WireClient;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ApiVersionsIT {
  private final ApiRegistry registry =
      ApiRegistry.of(
          TestHandlers.answering(
              ApiKeys.DESCRIBE_CLUSTER,
              (short) 1,
              (short) 2,
              (c, r) -> new DescribeClusterResponseData()));
  private TestServer server;

  @BeforeEach
  void start() {
    server = TestServer.start(registry);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @ParameterizedTest
  @ValueSource(shorts = {0, 1, 2, 3, 4, 5})
  void answersEverySupportedVersionWithTheTable(short version) throws Exception {
    // Given
    try (WireClient client = server.connect()) {
      // When
      ApiVersionsResponseData response =
          client
              .roundTrip(
                  new ApiVersionsRequestData()
                      .setClientSoftwareName("wire-test")
                      .setClientSoftwareVersion("1.0"),
                  version)
              .as(ApiVersionsResponseData.class);

      // Then
      assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
      assertThat(response.apiKeys())
          .containsExactly(
              apiVersion(ApiKeys.API_VERSIONS, 0, ApiKeys.API_VERSIONS.latestVersion()),
              apiVersion(ApiKeys.DESCRIBE_CLUSTER, 1, 2));
      if (version >= 3) {
        // kraft.version 1, finalized: the controller quorum is dynamic (KIP-853)
        assertThat(response.finalizedFeatures().find("kraft.version").maxVersionLevel())
            .isEqualTo((short) 1);
        assertThat(response.supportedFeatures().find("kraft.version").maxVersion())
            .isEqualTo((short) 1);
      }
    }
  }

  @Test
  void answersATooNewVersionAtV0WithUnsupportedVersionAndTheTable() throws Exception {
    // Given: a client from the future sends ApiVersions v127 with a header v2 and a body we
    // cannot know (here: the v4 layout)
    short futureVersion = 127;
    byte[] request =
        WireClient.encodeRequest(
            ApiKeys.API_VERSIONS,
            futureVersion,
            (short) 2,
            42,
            "future-client",
            new ApiVersionsRequestData().setClientSoftwareName("f").setClientSoftwareVersion("9"),
            (short) 4);

    try (WireClient client = server.connect()) {
      // When
      client.sendRaw(request);
      ByteBuffer frame = client.receiveFrame();

      // Then: header v0 (no tagged fields), body v0
      ByteBufferAccessor accessor = new ByteBufferAccessor(frame);
      assertThat(new ResponseHeaderData(accessor, (short) 0).correlationId()).isEqualTo(42);
      ApiVersionsResponseData response = new ApiVersionsResponseData(accessor, (short) 0);
      assertThat(frame.hasRemaining()).isFalse();
      assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
      assertThat(response.apiKeys()).isEqualTo(registry.versionTable());
    }
    server.assertStillServes();
  }

  private static ApiVersion apiVersion(ApiKeys key, int min, int max) {
    return new ApiVersion().setApiKey(key.id).setMinVersion((short) min).setMaxVersion((short) max);
  }
}
