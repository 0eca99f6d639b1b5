package io.brook.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.SeedRequests;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * Any frame given to {@link RequestParser} (header and body of every API kafka-clients knows, all
 * served) is decoded or refused with a {@link MalformedRequestException}; nothing else escapes.
 *
 * <p>Seeds ({@code RequestParserFuzzTestInputs/}): each API's request at its newest version
 * kafka-clients can write, without the length prefix (every version of every API seeds {@code
 * RequestPipelineFuzzTest}). Rewrite them with {@code -Dbrook.fuzz.seeds.write=true} on {@link
 * #everyApiHasASeed()}.
 */
class RequestParserFuzzTest {
  private static final Path SEEDS =
      Path.of(
          "src/test/resources/io/brook/protocol/codec/RequestParserFuzzTestInputs",
          "anyFrameIsDecodedOrMalformed");
  private static final ApiRegistry SERVING_EVERYTHING = ProtocolCases.servingEverything();
  private static final RequestParser PARSER = new RequestParser(SERVING_EVERYTHING);

  @FuzzTest(maxDuration = "5m")
  void anyFrameIsDecodedOrMalformed(byte[] frame) {
    try {
      DecodedRequest request = PARSER.parse(ByteBuffer.wrap(frame), 0);
      assertThat(request.header()).isNotNull();
    } catch (MalformedRequestException expected) {
      // refused: the connection would be closed
    }
  }

  @Test
  void everyApiHasASeed() throws IOException {
    if (Boolean.getBoolean("brook.fuzz.seeds.write")) {
      Files.createDirectories(SEEDS);
      for (ApiKeys apiKey : SeedRequests.apis()) {
        List<byte[]> frames = SeedRequests.framesOf(apiKey);
        write(apiKey, "newest", frames.get(frames.size() - 1));
      }
    }
    List<String> missing = new ArrayList<>();
    for (ApiKeys apiKey : SeedRequests.apis()) {
      if (!Files.isRegularFile(seed(apiKey, "newest"))) {
        missing.add(apiKey.name());
      }
    }
    assertThat(missing)
        .as("APIs without a seed; rerun with -Dbrook.fuzz.seeds.write=true")
        .isEmpty();
  }

  private static void write(ApiKeys apiKey, String which, byte[] frame) throws IOException {
    Files.write(seed(apiKey, which), Arrays.copyOfRange(frame, 4, frame.length));
  }

  private static Path seed(ApiKeys apiKey, String which) {
    return SEEDS.resolve(apiKey.name().toLowerCase(Locale.ROOT) + "-" + which);
  }
}
