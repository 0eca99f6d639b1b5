package io.brook.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.TestHandlers;
import io.brook.protocol.testing.WireClient;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RequestParserTest {
  private static final ApiRegistry EVERYTHING = ProtocolCases.servingEverything();
  private static final ApiRegistry NOTHING = ApiRegistry.of();

  @ParameterizedTest(name = "{0} v{1}")
  @MethodSource("io.brook.protocol.codec.ProtocolCases#everyApiAndVersion")
  void decodesWhatKafkaClientsEncodes(ApiKeys apiKey, short version) {
    // Given
    ApiMessage request = ApiMessageType.fromApiKey(apiKey.id).newRequest();
    ByteBuffer frame = frameOf(request, version, 17);

    // When
    DecodedRequest decoded = new RequestParser(EVERYTHING).parse(frame, 5L);

    // Then
    assertThat(decoded).isInstanceOf(DecodedRequest.Supported.class);
    DecodedRequest.Supported supported = (DecodedRequest.Supported) decoded;
    assertThat(supported.header().apiKey()).isEqualTo(apiKey);
    assertThat(supported.header().apiVersion()).isEqualTo(version);
    assertThat(supported.header().correlationId()).isEqualTo(17);
    assertThat(supported.header().clientId()).isEqualTo(WireClient.CLIENT_ID);
    assertThat(supported.body()).isEqualTo(request);
    assertThat(supported.receivedNanos()).isEqualTo(5L);
  }

  @ParameterizedTest(name = "{0} v{1}")
  @MethodSource("io.brook.protocol.codec.ProtocolCases#everyApiAndVersion")
  void answersUnservedApisWithTheirUnsupportedVersionErrorOrRefusesThem(
      ApiKeys apiKey, short version) {
    // Given
    ByteBuffer frame = frameOf(ApiMessageType.fromApiKey(apiKey.id).newRequest(), version, 3);

    // When
    DecodedRequest decoded;
    try {
      decoded = new RequestParser(NOTHING).parse(frame, 0L);
    } catch (MalformedRequestException e) {
      // Then (APIs kafka-clients cannot answer with an error response): closed, never a crash
      return;
    }

    // Then
    if (apiKey == ApiKeys.API_VERSIONS) {
      assertThat(decoded).isInstanceOf(DecodedRequest.Supported.class);
      return;
    }
    assertThat(decoded).isInstanceOf(DecodedRequest.Unsupported.class);
    ApiMessage errorResponse = ((DecodedRequest.Unsupported) decoded).errorResponse();
    assertThat(errorResponse.apiKey()).isEqualTo(apiKey.id);
    assertThat(errorResponse.getClass())
        .isEqualTo(ApiMessageType.fromApiKey(apiKey.id).newResponse().getClass());
  }

  @Test
  void anUnservedVersionOfAServedApiGetsUnsupportedVersion() {
    // Given
    ApiRegistry registry =
        ApiRegistry.of(
            TestHandlers.answering(ApiKeys.DESCRIBE_CLUSTER, (short) 1, (short) 1, (c, r) -> null));

    // When
    DecodedRequest decoded =
        new RequestParser(registry)
            .parse(frameOf(new DescribeClusterRequestData(), (short) 2, 1), 0);

    // Then
    assertThat(decoded).isInstanceOf(DecodedRequest.Unsupported.class);
    DescribeClusterResponseData response =
        (DescribeClusterResponseData) ((DecodedRequest.Unsupported) decoded).errorResponse();
    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
    assertThat(response.errorMessage()).contains("versions 1..1 are served");
  }

  @Test
  void listGroupsWithoutHandlerGetsUnsupportedVersion() {
    DecodedRequest decoded =
        new RequestParser(NOTHING)
            .parse(
                frameOf(
                    ApiMessageType.LIST_GROUPS.newRequest(),
                    ApiKeys.LIST_GROUPS.latestVersion(),
                    1),
                0);

    ListGroupsResponseData response =
        (ListGroupsResponseData) ((DecodedRequest.Unsupported) decoded).errorResponse();
    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
  }

  @Test
  void apiVersionsOfAnUnknownVersionIsNotDecoded() {
    // Given: v200 with a body that means nothing at v200
    ByteBuffer frame =
        withoutLengthPrefix(
            WireClient.encodeRequest(
                ApiKeys.API_VERSIONS,
                (short) 200,
                (short) 2,
                9,
                "c",
                new ApiVersionsRequestData(),
                (short) 3));

    // When
    DecodedRequest decoded = new RequestParser(NOTHING).parse(frame, 0);

    // Then
    assertThat(decoded).isInstanceOf(DecodedRequest.UnsupportedApiVersions.class);
    assertThat(decoded.header().correlationId()).isEqualTo(9);
  }

  @Test
  void refusesAnUnknownApiKey() {
    ByteBuffer frame =
        ByteBuffer.allocate(10)
            .putShort((short) 999)
            .putShort((short) 0)
            .putInt(1)
            .putShort((short) -1)
            .flip();

    assertThatThrownBy(() -> new RequestParser(EVERYTHING).parse(frame, 0))
        .isInstanceOf(MalformedRequestException.class)
        .hasMessageContaining("header");
  }

  @Test
  void refusesAnApiKeyWithoutVersions() {
    ByteBuffer frame =
        ByteBuffer.allocate(10)
            .putShort(ApiKeys.LEADER_AND_ISR.id)
            .putShort((short) 0)
            .putInt(1)
            .putShort((short) -1)
            .flip();

    assertThatThrownBy(() -> new RequestParser(EVERYTHING).parse(frame, 0))
        .isInstanceOf(MalformedRequestException.class);
  }

  @Test
  void refusesTrailingBytes() {
    ByteBuffer valid = frameOf(new DescribeClusterRequestData(), (short) 1, 1);
    ByteBuffer longer = ByteBuffer.allocate(valid.remaining() + 1).put(valid).put((byte) 0).flip();

    assertThatThrownBy(() -> new RequestParser(EVERYTHING).parse(longer, 0))
        .isInstanceOf(MalformedRequestException.class)
        .hasMessageContaining("1 trailing bytes");
  }

  @Test
  void refusesATruncatedBody() {
    ByteBuffer valid =
        frameOf(
            new ApiVersionsRequestData()
                .setClientSoftwareName("name")
                .setClientSoftwareVersion("1"),
            (short) 3,
            1);
    ByteBuffer shorter = valid.limit(valid.limit() - 2);

    assertThatThrownBy(() -> new RequestParser(EVERYTHING).parse(shorter, 0))
        .isInstanceOf(MalformedRequestException.class)
        .hasMessageContaining("cannot decode");
  }

  @Test
  void refusesAnUnservedVersionKafkaClientsCannotParse() {
    ByteBuffer frame =
        withoutLengthPrefix(
            WireClient.encodeRequest(
                ApiKeys.DESCRIBE_CLUSTER,
                (short) 50,
                (short) 2,
                1,
                "c",
                new DescribeClusterRequestData(),
                (short) 1));

    assertThatThrownBy(() -> new RequestParser(EVERYTHING).parse(frame, 0))
        .isInstanceOf(MalformedRequestException.class)
        .hasMessageContaining("cannot be answered");
  }

  static ByteBuffer frameOf(ApiMessage request, short version, int correlationId) {
    return withoutLengthPrefix(
        WireClient.encodeRequest(request, version, correlationId, WireClient.CLIENT_ID));
  }

  static ByteBuffer withoutLengthPrefix(byte[] frame) {
    return ByteBuffer.wrap(Arrays.copyOfRange(frame, 4, frame.length));
  }
}
