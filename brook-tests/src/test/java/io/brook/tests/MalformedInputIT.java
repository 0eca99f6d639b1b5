package io.brook.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.BrookExtension;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Broken, hostile and merely wrong input over raw sockets against the full broker, while
 * well-behaved clients keep working on other connections: a kafka-clients producer and consumer
 * ({@link BackgroundTraffic}), kcat and kafkajs ({@link ForeignClientTraffic}). Connection-level
 * garbage closes that one connection; a well-formed Produce with bad records gets Kafka's
 * per-partition error and leaves the connection and the partition usable.
 */
@Timeout(120)
class MalformedInputIT {
  @RegisterExtension static final BrookExtension BROOK = new BrookExtension();

  /** Kafka's default {@code message.max.bytes}: 1 MiB plus the record batch overhead. */
  private static final int DEFAULT_MESSAGE_MAX_BYTES = 1_048_588;

  private static BackgroundTraffic traffic;
  private static ForeignClientTraffic foreignTraffic;

  @BeforeAll
  static void startTraffic() throws Exception {
    traffic = BackgroundTraffic.start(BROOK.bootstrapServers(), "well-behaved");
    foreignTraffic = ForeignClientTraffic.start(BROOK.bootstrapServers(), "well-behaved");
    traffic.assertStillFlowing(20);
    foreignTraffic.assertStillFlowing();
  }

  @AfterAll
  static void stopTraffic() throws Exception {
    try (AutoCloseable foreign = foreignTraffic) {
      if (traffic != null) {
        traffic.close();
      }
    }
  }

  private static RawKafkaClient connect() throws IOException {
    RawKafkaClient client = new RawKafkaClient("127.0.0.1", BROOK.brook().port());
    client.setTimeout(Duration.ofSeconds(10));
    return client;
  }

  /** After abuse: other clients still flow, and a new connection is served normally. */
  private static void assertBrokerStillServes() throws IOException {
    traffic.assertStillFlowing(20);
    foreignTraffic.assertStillFlowing();
    try (RawKafkaClient client = connect()) {
      short version = ApiKeys.API_VERSIONS.latestVersion();
      ByteBuffer body = client.send(new ApiVersionsRequestData(), version);
      ApiVersionsResponseData response =
          new ApiVersionsResponseData(new ByteBufferAccessor(body), version);
      assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
    }
  }

  // ---- connection level ----

  @Test
  void framesOfRandomBytesCloseTheirConnection() throws Exception {
    for (int seed = 0; seed < 20; seed++) {
      // Given: a well-framed request whose header and body are random
      byte[] garbage = new byte[1024];
      new Random(seed).nextBytes(garbage);
      ByteBuffer frame =
          ByteBuffer.allocate(4 + garbage.length).putInt(garbage.length).put(garbage);

      try (RawKafkaClient client = connect()) {
        // When
        client.sendBytesIgnoringReset(frame.array());

        // Then
        assertThat(client.closedByPeer()).as("connection closed for seed %d", seed).isTrue();
      }
    }
    assertBrokerStillServes();
  }

  @Test
  void aStreamOfRandomBytesClosesItsConnection() throws Exception {
    // Given
    byte[] garbage = new byte[64 * 1024];
    new Random(42).nextBytes(garbage);

    try (RawKafkaClient client = connect()) {
      // When
      client.sendBytesIgnoringReset(garbage);
      client.shutdownOutput();

      // Then
      assertThat(client.closedByPeer()).isTrue();
    }
    assertBrokerStillServes();
  }

  @Test
  void aTruncatedFrameFollowedByCloseIsForgotten() throws Exception {
    // Given: a Metadata request cut off after half its bytes
    byte[] frame =
        RawKafkaClient.frame(
            new org.apache.kafka.common.message.MetadataRequestData(),
            ApiKeys.METADATA.latestVersion(),
            1);

    // When
    try (RawKafkaClient client = connect()) {
      client.sendBytes(java.util.Arrays.copyOf(frame, frame.length / 2));
    }

    // Then
    assertBrokerStillServes();
  }

  @Test
  void aLengthPrefixOfOneGibibyteIsRefusedWithoutWaitingForTheFrame() throws Exception {
    try (RawKafkaClient client = connect()) {
      // When: 2^30 announced, far over socket.request.max.bytes (100 MiB)
      client.sendBytesIgnoringReset(ByteBuffer.allocate(12).putInt(1 << 30).putLong(7).array());

      // Then
      assertThat(client.closedByPeer()).isTrue();
    }
    assertBrokerStillServes();
  }

  @Test
  void aNegativeLengthPrefixClosesTheConnection() throws Exception {
    try (RawKafkaClient client = connect()) {
      // When
      client.sendBytesIgnoringReset(ByteBuffer.allocate(12).putInt(-5).putLong(7).array());

      // Then
      assertThat(client.closedByPeer()).isTrue();
    }
    assertBrokerStillServes();
  }

  @Test
  void anUnknownApiKeyClosesTheConnection() throws Exception {
    // Given: API key 31000 does not exist
    RequestHeaderData header =
        new RequestHeaderData()
            .setRequestApiKey((short) 31_000)
            .setRequestApiVersion((short) 0)
            .setCorrelationId(1)
            .setClientId("malformed-input-it");

    try (RawKafkaClient client = connect()) {
      // When
      client.sendBytesIgnoringReset(frame(header, (short) 1, new byte[16]));

      // Then
      assertThat(client.closedByPeer()).isTrue();
    }
    assertBrokerStillServes();
  }

  @Test
  void apiVersionsAtAFarFutureVersionIsAnsweredAtVersionZeroWithUnsupportedVersion()
      throws Exception {
    // Given: what a client newer than the broker sends first (KIP-511)
    short futureVersion = 999;
    RequestHeaderData header =
        new RequestHeaderData()
            .setRequestApiKey(ApiKeys.API_VERSIONS.id)
            .setRequestApiVersion(futureVersion)
            .setCorrelationId(77)
            .setClientId("client-from-the-future");
    byte[] body =
        serialize(
            new ApiVersionsRequestData()
                .setClientSoftwareName("future-client")
                .setClientSoftwareVersion("99.0"),
            ApiKeys.API_VERSIONS.latestVersion());

    try (RawKafkaClient client = connect()) {
      // When
      client.sendBytes(frame(header, (short) 2, body));
      ByteBuffer response = client.readFrame();

      // Then: a v0 response (header v0, body v0) so that any client can read it
      ResponseHeader responseHeader = ResponseHeader.parse(response, (short) 0);
      assertThat(responseHeader.correlationId()).isEqualTo(77);
      ApiVersionsResponseData data =
          new ApiVersionsResponseData(new ByteBufferAccessor(response), (short) 0);
      assertThat(response.remaining()).isZero();
      assertThat(data.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
      assertThat(data.apiKeys()).isNotEmpty();
      ApiVersionsResponseData.ApiVersion apiVersions = data.apiKeys().find(ApiKeys.API_VERSIONS.id);
      assertThat(apiVersions).isNotNull();
      assertThat(apiVersions.minVersion()).isZero();
      assertThat(apiVersions.maxVersion()).isGreaterThanOrEqualTo((short) 3);
    }
    assertBrokerStillServes();
  }

  // ---- produce requests with bad records ----

  @Test
  void aMagicV0MessageIsAnInvalidRecord() throws Exception {
    assertProduceRejected(
        "magic-v0", Map.of(), (short) -1, legacyMessage((byte) 0), Errors.INVALID_RECORD);
  }

  @Test
  void aMagicV1MessageIsAnInvalidRecord() throws Exception {
    assertProduceRejected(
        "magic-v1", Map.of(), (short) -1, legacyMessage((byte) 1), Errors.INVALID_RECORD);
  }

  @Test
  void aBatchWithAWrongCrcIsACorruptMessage() throws Exception {
    ByteBuffer batch = batch(new SimpleRecord("key".getBytes(UTF_8), "value".getBytes(UTF_8)));
    int last = batch.limit() - 1;
    batch.put(last, (byte) (batch.get(last) ^ 0x5a));
    assertProduceRejected("bad-crc", Map.of(), (short) -1, batch, Errors.CORRUPT_MESSAGE);
  }

  @Test
  void twoBatchesForOnePartitionAreAnInvalidRecord() throws Exception {
    ByteBuffer first = batch(new SimpleRecord("one".getBytes(UTF_8)));
    ByteBuffer second = batch(new SimpleRecord("two".getBytes(UTF_8)));
    ByteBuffer both = ByteBuffer.allocate(first.remaining() + second.remaining());
    both.put(first).put(second).flip();
    assertProduceRejected("two-batches", Map.of(), (short) -1, both, Errors.INVALID_RECORD);
  }

  @Test
  void aBatchOverMessageMaxBytesIsMessageTooLarge() throws Exception {
    byte[] value = new byte[DEFAULT_MESSAGE_MAX_BYTES + 1];
    new Random(3).nextBytes(value);
    ByteBuffer batch = batch(new SimpleRecord(value));
    assertThat(batch.remaining()).isGreaterThan(DEFAULT_MESSAGE_MAX_BYTES);
    assertProduceRejected("too-large", Map.of(), (short) -1, batch, Errors.MESSAGE_TOO_LARGE);
  }

  @Test
  void aNullKeyOnACompactedTopicIsAnInvalidRecord() throws Exception {
    ByteBuffer batch = batch(new SimpleRecord(null, "no key".getBytes(UTF_8)));
    assertProduceRejected(
        "compacted", Map.of("cleanup.policy", "compact"), (short) -1, batch, Errors.INVALID_RECORD);
  }

  @Test
  void acksOfFiveIsInvalidRequiredAcks() throws Exception {
    ByteBuffer batch = batch(new SimpleRecord("k".getBytes(UTF_8), "v".getBytes(UTF_8)));
    assertProduceRejected("acks-five", Map.of(), (short) 5, batch, Errors.INVALID_REQUIRED_ACKS);
  }

  /**
   * Sends {@code records} to partition 0 of a new topic and expects {@code expected}; then, on the
   * same connection, a good batch must be stored at offset 0 (nothing of the bad one was kept).
   */
  private static void assertProduceRejected(
      String topic, Map<String, String> configs, short acks, ByteBuffer records, Errors expected)
      throws Exception {
    // Given
    TestClients.createTopic(BROOK.bootstrapServers(), topic, 1, configs);
    Uuid topicId = topicId(topic);

    try (RawKafkaClient client = connect()) {
      // When
      PartitionProduceResponse rejected = produce(client, topic, topicId, acks, records);
      PartitionProduceResponse good =
          produce(
              client,
              topic,
              topicId,
              (short) -1,
              batch(new SimpleRecord("good-key".getBytes(UTF_8), "good".getBytes(UTF_8))));

      // Then
      assertThat(Errors.forCode(rejected.errorCode()))
          .as("error for %s (message: %s)", topic, rejected.errorMessage())
          .isEqualTo(expected);
      assertThat(Errors.forCode(good.errorCode())).isEqualTo(Errors.NONE);
      assertThat(good.baseOffset()).isZero();
    }
    assertThat(TestClients.readAll(BROOK.bootstrapServers(), topic, 1))
        .singleElement()
        .satisfies(record -> assertThat(new String(record.value(), UTF_8)).isEqualTo("good"));
    traffic.assertStillFlowing(20);
  }

  private static PartitionProduceResponse produce(
      RawKafkaClient client, String topic, Uuid topicId, short acks, ByteBuffer records)
      throws IOException {
    return client.produce(topic, topicId, acks, records);
  }

  private static Uuid topicId(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", BROOK.bootstrapServers()))) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
    }
  }

  /** One uncompressed message-format-v2 batch, not idempotent. */
  private static ByteBuffer batch(SimpleRecord... records) {
    return MemoryRecords.withRecords(Compression.NONE, records).buffer();
  }

  /**
   * A message in the pre-0.11 formats, built by hand from the format description: offset (8), size
   * (4), crc (4, CRC-32 of everything after it), magic (1), attributes (1), [timestamp (8) in v1],
   * key length (4, -1 for none), value length (4) and value.
   */
  private static ByteBuffer legacyMessage(byte magic) throws IOException {
    byte[] value = ("a message in format v" + magic).getBytes(UTF_8);
    ByteArrayOutputStream afterCrc = new ByteArrayOutputStream();
    DataOutputStream fields = new DataOutputStream(afterCrc);
    fields.writeByte(magic);
    fields.writeByte(0);
    if (magic == RecordBatch.MAGIC_VALUE_V1) {
      fields.writeLong(System.currentTimeMillis());
    }
    fields.writeInt(-1);
    fields.writeInt(value.length);
    fields.write(value);
    byte[] rest = afterCrc.toByteArray();
    CRC32 crc = new CRC32();
    crc.update(rest);
    ByteBuffer message = ByteBuffer.allocate(8 + 4 + 4 + rest.length);
    message.putLong(0).putInt(4 + rest.length).putInt((int) crc.getValue()).put(rest).flip();
    return message;
  }

  private static byte[] serialize(ApiMessage message, short version) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    MessageSizeAccumulator size = new MessageSizeAccumulator();
    message.addSize(size, cache, version);
    ByteBuffer buffer = ByteBuffer.allocate(size.totalSize());
    message.write(new ByteBufferAccessor(buffer), cache, version);
    return buffer.array();
  }

  /** Length prefix, a request header at {@code headerVersion}, then {@code body} as is. */
  private static byte[] frame(RequestHeaderData header, short headerVersion, byte[] body) {
    byte[] headerBytes = serialize(header, headerVersion);
    return ByteBuffer.allocate(4 + headerBytes.length + body.length)
        .putInt(headerBytes.length + body.length)
        .put(headerBytes)
        .put(body)
        .array();
  }
}
