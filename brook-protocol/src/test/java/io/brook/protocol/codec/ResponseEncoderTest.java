package io.brook.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.ZeroCopyRecords;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ResponseEncoderTest {
  private static final ByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} v{1}")
  @MethodSource("io.brook.protocol.codec.ProtocolCases#everyApiAndVersion")
  void encodesExactlyLikeKafkaClients(ApiKeys apiKey, short version) throws Exception {
    // Given
    ApiMessage body = ApiMessageType.fromApiKey(apiKey.id).newResponse();
    OutboundResponse response =
        new OutboundResponse(99, apiKey.responseHeaderVersion(version), body, version);

    // When
    byte[] encoded = concatenate(ResponseEncoder.encode(ALLOCATOR, response));

    // Then
    assertThat(encoded).isEqualTo(kafkaClientsEncoding(response));
  }

  @Test
  void memoryRecordsAreSentWithoutCopyInWireOrder() throws Exception {
    // Given: records from memory between other fields
    MemoryRecords records =
        MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("value".getBytes()));
    OutboundResponse response = fetchResponse(records);

    // When
    List<Object> parts = ResponseEncoder.encode(ALLOCATOR, response);

    // Then: header and fields before, the records, fields after
    assertThat(parts).hasSize(3);
    assertThat(concatenate(parts)).isEqualTo(kafkaClientsEncoding(response));
  }

  @Test
  void zeroCopyRecordsBecomeAFileRegionThatLeavesTheChannelOpen() throws Exception {
    // Given
    byte[] batch =
        bytesOf(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes())));
    Path file = dir.resolve("segment.log");
    Files.write(file, new byte[100]);
    Files.write(file, batch, StandardOpenOption.APPEND);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      OutboundResponse response = fetchResponse(new ZeroCopyRecords(channel, 100, batch.length));

      // When
      List<Object> parts = ResponseEncoder.encode(ALLOCATOR, response);

      // Then
      assertThat(parts).hasSize(3);
      assertThat(parts.get(1)).isInstanceOf(FileRegion.class);
      byte[] sent = concatenate(parts);
      assertThat(sent)
          .isEqualTo(
              kafkaClientsEncoding(
                  fetchResponse(MemoryRecords.readableRecords(ByteBuffer.wrap(batch)))));
      assertThat(channel.isOpen()).as("releasing the region must not close the file").isTrue();
    }
  }

  @Test
  void theFileStaysPinnedFromEncodingUntilNettyReleasesTheRegion() throws Exception {
    // Given
    byte[] batch =
        bytesOf(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes())));
    Path file = dir.resolve("segment.log");
    Files.write(file, batch);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      CountingFile counting = new CountingFile(channel, false);
      OutboundResponse response = fetchResponse(new ZeroCopyRecords(counting, 0, batch.length));

      // When
      List<Object> parts = ResponseEncoder.encode(ALLOCATOR, response);

      // Then: pinned while the parts wait to be written, unpinned once they are released
      assertThat(counting.pins).isEqualTo(1);
      concatenate(parts);
      assertThat(counting.pins).isZero();
      assertThat(counting.everPinned).isEqualTo(1);
    }
  }

  @Test
  void aFileThatCannotBeReopenedFailsTheEncodeWithoutLeakingAPin() throws Exception {
    // Given: a file the storage layer closed for good
    Path file = dir.resolve("segment.log");
    Files.write(file, new byte[10]);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      CountingFile counting = new CountingFile(channel, true);
      OutboundResponse response = fetchResponse(new ZeroCopyRecords(counting, 0, 10));

      // Then
      assertThatThrownBy(() -> ResponseEncoder.encode(ALLOCATOR, response))
          .isInstanceOf(java.io.UncheckedIOException.class);
      assertThat(counting.pins).isZero();
    }
  }

  /** Counts pins; optionally refuses them as a retired segment file does. */
  private static final class CountingFile implements io.brook.protocol.PinnableFile {
    private final FileChannel channel;
    private final boolean refuse;
    int pins;
    int everPinned;

    CountingFile(FileChannel channel, boolean refuse) {
      this.channel = channel;
      this.refuse = refuse;
    }

    @Override
    public FileChannel pin() throws java.io.IOException {
      if (refuse) {
        throw new java.nio.channels.ClosedChannelException();
      }
      pins++;
      everPinned++;
      return channel;
    }

    @Override
    public void unpin() {
      pins--;
    }
  }

  @Test
  void aMessageWhoseSizeDiffersFromWhatItWritesIsRefusedWithoutLeaking() {
    // Given: a message that claims 10 bytes and writes 4
    OutboundResponse response =
        new OutboundResponse(1, (short) 0, new MisSizedMessage(), (short) 0);

    // Then
    assertThatThrownBy(() -> ResponseEncoder.encode(ALLOCATOR, response))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("computed size");
  }

  private static OutboundResponse fetchResponse(
      org.apache.kafka.common.record.internal.BaseRecords records) {
    FetchResponseData body =
        new FetchResponseData()
            .setResponses(
                List.of(
                    new FetchableTopicResponse()
                        .setTopic("t")
                        .setPartitions(
                            List.of(
                                new PartitionData().setPartitionIndex(3).setRecords(records)))));
    short version = 12;
    return new OutboundResponse(5, ApiKeys.FETCH.responseHeaderVersion(version), body, version);
  }

  /** The same frame written by kafka-clients alone into a heap buffer. */
  private static byte[] kafkaClientsEncoding(OutboundResponse response) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(response.correlationId());
    int headerBytes = header.size(cache, response.headerVersion());
    int bodyBytes = response.body().size(cache, response.apiVersion());
    ByteBuffer buffer = ByteBuffer.allocate(4 + headerBytes + bodyBytes);
    ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
    accessor.writeInt(headerBytes + bodyBytes);
    header.write(accessor, cache, response.headerVersion());
    response.body().write(accessor, cache, response.apiVersion());
    return buffer.array();
  }

  /** Reads and releases every part. */
  private static byte[] concatenate(List<Object> parts) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (WritableByteChannel sink = Channels.newChannel(out)) {
      for (Object part : parts) {
        if (part instanceof ByteBuf buf) {
          byte[] bytes = new byte[buf.readableBytes()];
          buf.getBytes(buf.readerIndex(), bytes);
          out.write(bytes);
        } else if (part instanceof FileRegion region) {
          long written = 0;
          while (written < region.count()) {
            written += region.transferTo(sink, written);
          }
        }
      }
    } finally {
      parts.forEach(ReferenceCountUtil::release);
    }
    return out.toByteArray();
  }

  private static byte[] bytesOf(MemoryRecords records) {
    ByteBuffer buffer = records.buffer();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  /** Claims a size it does not write. */
  private static final class MisSizedMessage implements ApiMessage {
    @Override
    public short apiKey() {
      return ApiKeys.API_VERSIONS.id;
    }

    @Override
    public short lowestSupportedVersion() {
      return 0;
    }

    @Override
    public short highestSupportedVersion() {
      return 0;
    }

    @Override
    public void addSize(
        MessageSizeAccumulator size, ObjectSerializationCache cache, short version) {
      size.addBytes(10);
    }

    @Override
    public void write(Writable writable, ObjectSerializationCache cache, short version) {
      writable.writeInt(7);
    }

    @Override
    public void read(Readable readable, short version) {
      throw new UnsupportedOperationException("write-only test message");
    }

    @Override
    public List<RawTaggedField> unknownTaggedFields() {
      return List.of();
    }

    @Override
    public MisSizedMessage duplicate() {
      return new MisSizedMessage();
    }
  }
}
