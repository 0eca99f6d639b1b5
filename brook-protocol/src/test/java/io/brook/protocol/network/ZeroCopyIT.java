package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.ZeroCopyRecords;
import io.brook.protocol.testing.TestHandlers;
import io.brook.protocol.testing.TestServer;
import io.brook.protocol.testing.WireClient;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Records in a response that stay in a file ({@link ZeroCopyRecords}) reach the client byte for
 * byte through a file region, on both transports, and the storage layer's channel stays open.
 */
class ZeroCopyIT {
  private static final short FETCH_VERSION = 12;
  private static final int FILE_PREFIX_BYTES = 1000;

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Transport.class)
  void recordsInAFileReachTheClientExactly(Transport transport) throws Exception {
    assumeTrue(transport.isAvailable(), transport + " is not available here");
    // Given: a segment-like file with real record batches after some unrelated bytes
    ByteBuffer batches =
        MemoryRecords.withRecords(
                Compression.NONE,
                new SimpleRecord("k1".getBytes(), "v1".getBytes()),
                new SimpleRecord("k2".getBytes(), "v2".getBytes()))
            .buffer();
    byte[] recordBytes = new byte[batches.remaining()];
    batches.get(recordBytes);

    try (FileChannel channel = segmentWith(recordBytes)) {
      ZeroCopyRecords records = new ZeroCopyRecords(channel, FILE_PREFIX_BYTES, recordBytes.length);
      try (TestServer server = TestServer.start(fetchAnswering(records), s -> s, transport);
          WireClient client = server.connect()) {
        // When
        FetchResponseData response =
            client.roundTrip(new FetchRequestData(), FETCH_VERSION).as(FetchResponseData.class);

        // Then
        assertThat(bytesOf(onlyPartition(response).records())).isEqualTo(recordBytes);
        assertThat(channel.isOpen()).isTrue();
      }
      assertThat(channel.isOpen()).as("still open after the server closed").isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void largeFileRegionsAndMemoryRecordsInOneResponseKeepTheirOrder(Transport transport)
      throws Exception {
    assumeTrue(transport.isAvailable(), transport + " is not available here");
    // Given: 8 MiB from a file (larger than socket buffers, so the write goes out in many
    // pieces) between two partitions answered from memory
    byte[] big = new byte[8 * 1024 * 1024];
    new Random(42).nextBytes(big);
    MemoryRecords before =
        MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("before".getBytes()));
    MemoryRecords after =
        MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("after".getBytes()));

    try (FileChannel channel = segmentWith(big)) {
      ZeroCopyRecords fromFile = new ZeroCopyRecords(channel, FILE_PREFIX_BYTES, big.length);
      AtomicReference<List<BaseRecords>> answer =
          new AtomicReference<>(List.of(before, fromFile, after));
      try (TestServer server = TestServer.start(fetchAnswering(answer), s -> s, transport);
          WireClient client = server.connect()) {
        // When: asked twice on one connection
        for (int round = 0; round < 2; round++) {
          FetchResponseData response =
              client.roundTrip(new FetchRequestData(), FETCH_VERSION).as(FetchResponseData.class);

          // Then
          List<PartitionData> partitions = response.responses().get(0).partitions();
          assertThat(partitions).hasSize(3);
          assertThat(bytesOf(partitions.get(0).records())).isEqualTo(bytesOf(before));
          assertThat(bytesOf(partitions.get(1).records())).isEqualTo(big);
          assertThat(bytesOf(partitions.get(2).records())).isEqualTo(bytesOf(after));
        }
      }
      assertThat(channel.isOpen()).isTrue();
    }
  }

  private FileChannel segmentWith(byte[] records) throws Exception {
    Path file = Files.createTempFile(dir, "segment", ".log");
    byte[] prefix = new byte[FILE_PREFIX_BYTES];
    new Random(7).nextBytes(prefix);
    Files.write(file, prefix);
    Files.write(file, records, StandardOpenOption.APPEND);
    Files.write(file, "trailing bytes not to send".getBytes(), StandardOpenOption.APPEND);
    return FileChannel.open(file, StandardOpenOption.READ);
  }

  private static ApiRegistry fetchAnswering(BaseRecords records) {
    return fetchAnswering(new AtomicReference<>(List.of(records)));
  }

  private static ApiRegistry fetchAnswering(AtomicReference<List<BaseRecords>> records) {
    return ApiRegistry.of(
        TestHandlers.answering(
            ApiKeys.FETCH,
            (context, request) -> {
              FetchableTopicResponse topic = new FetchableTopicResponse().setTopic("t");
              List<BaseRecords> all = records.get();
              for (int i = 0; i < all.size(); i++) {
                topic
                    .partitions()
                    .add(
                        new PartitionData()
                            .setPartitionIndex(i)
                            .setHighWatermark(100)
                            .setRecords(all.get(i)));
              }
              return new FetchResponseData().setResponses(List.of(topic));
            }));
  }

  private static PartitionData onlyPartition(FetchResponseData response) {
    assertThat(response.responses()).hasSize(1);
    assertThat(response.responses().get(0).partitions()).hasSize(1);
    return response.responses().get(0).partitions().get(0);
  }

  private static byte[] bytesOf(BaseRecords records) {
    ByteBuffer buffer = ((MemoryRecords) records).buffer();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }
}
