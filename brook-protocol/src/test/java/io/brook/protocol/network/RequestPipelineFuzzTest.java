package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.brook.protocol.ApiHandler;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.codec.FrameDecoder;
import io.brook.protocol.codec.ReadGate;
import io.brook.protocol.codec.RequestDecoder;
import io.brook.protocol.codec.RequestParser;
import io.brook.protocol.memory.RequestMemoryPool;
import io.brook.protocol.testing.CountingAllocator;
import io.brook.protocol.testing.SeedRequests;
import io.brook.protocol.testing.TestHandlers;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * Any bytes through a connection's real pipeline (frame decoder with a request-memory budget,
 * request decoder, connection handler serving every API) end in responses, a wait for more input or
 * a closed connection: never an exception escaping the pipeline, never an allocation larger than
 * the budget allows, never request memory or a buffer left behind once the connection is gone.
 *
 * <p>Seeds ({@code RequestPipelineFuzzTestInputs/}): for every API, a request at each version
 * kafka-clients can write, concatenated, then one byte choosing how the input is split into reads.
 * Rewrite them with {@code -Dbrook.fuzz.seeds.write=true} on {@link #everyApiHasASeed()}.
 */
class RequestPipelineFuzzTest {
  private static final int MAX_FRAME_BYTES = 1 << 20;
  private static final long BUDGET_BYTES = 256 * 1024;
  private static final Path SEEDS =
      Path.of(
          "src/test/resources/io/brook/protocol/network/RequestPipelineFuzzTestInputs",
          "anyBytesEndInAnswersOrACloseAndLeaveNothingBehind");

  private static final ApiRegistry REGISTRY = servingEverything();
  private static final RequestDecoder REQUEST_DECODER =
      new RequestDecoder(new RequestParser(REGISTRY));

  @FuzzTest(maxDuration = "5m")
  void anyBytesEndInAnswersOrACloseAndLeaveNothingBehind(FuzzedDataProvider data) {
    int readBytes = 1 + (data.consumeByte() & 0xff) * 64;
    byte[] input = data.consumeRemainingAsBytes();
    RequestMemoryPool pool = new RequestMemoryPool(BUDGET_BYTES);
    CountingAllocator allocator = new CountingAllocator();
    EmbeddedChannel channel = new EmbeddedChannel();
    channel.config().setAllocator(allocator);
    ReadGate gate = new ReadGate(channel);
    channel
        .pipeline()
        .addLast(new FrameDecoder(MAX_FRAME_BYTES, 60_000, pool, gate))
        .addLast(REQUEST_DECODER)
        .addLast(
            new ConnectionHandler(
                REGISTRY,
                "PLAINTEXT",
                "fuzz",
                InetAddress.getLoopbackAddress(),
                500,
                64 * 1024,
                gate));
    try {
      for (int offset = 0; offset < input.length && channel.isOpen(); offset += readBytes) {
        int length = Math.min(readBytes, input.length - offset);
        channel.writeInbound(Unpooled.wrappedBuffer(input, offset, length));
        channel.runPendingTasks();
        channel.checkException();
      }
      assertThat(allocator.largestAllocation()).isLessThanOrEqualTo((int) BUDGET_BYTES);
      assertThat(pool.used()).isLessThanOrEqualTo(BUDGET_BYTES);
    } finally {
      channel.finishAndReleaseAll();
    }
    assertThat(pool.used()).as("request memory left reserved").isZero();
    assertThat(pool.waiters()).isZero();
  }

  @Test
  void everyApiHasASeed() throws IOException {
    if (Boolean.getBoolean("brook.fuzz.seeds.write")) {
      Files.createDirectories(SEEDS);
      for (ApiKeys apiKey : SeedRequests.apis()) {
        ByteArrayOutputStream seed = new ByteArrayOutputStream();
        for (byte[] frame : SeedRequests.framesOf(apiKey)) {
          seed.write(frame);
        }
        seed.write(apiKey.id % 4); // reads of 1, 65, 129 or 193 bytes
        Files.write(SEEDS.resolve(apiKey.name().toLowerCase(Locale.ROOT)), seed.toByteArray());
      }
    }
    List<String> missing = new ArrayList<>();
    for (ApiKeys apiKey : SeedRequests.apis()) {
      if (!Files.isRegularFile(SEEDS.resolve(apiKey.name().toLowerCase(Locale.ROOT)))) {
        missing.add(apiKey.name());
      }
    }
    assertThat(missing)
        .as("APIs without a seed; rerun with -Dbrook.fuzz.seeds.write=true")
        .isEmpty();
  }

  private static ApiRegistry servingEverything() {
    List<ApiHandler> handlers = new ArrayList<>();
    for (ApiKeys apiKey : ApiKeys.values()) {
      if (apiKey.hasValidVersion() && apiKey != ApiKeys.API_VERSIONS) {
        // Answers with the API's response holding default values; at versions where those cannot
        // be written, encoding fails and the connection closes: a path worth fuzzing too.
        handlers.add(
            TestHandlers.answering(
                apiKey,
                apiKey.oldestVersion(),
                apiKey.latestVersion(true),
                (c, r) -> ApiMessageType.fromApiKey(apiKey.id).newResponse()));
      }
    }
    return new ApiRegistry(handlers);
  }
}
