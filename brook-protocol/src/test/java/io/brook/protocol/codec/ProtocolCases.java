package io.brook.protocol.codec;

import io.brook.protocol.ApiHandler;
import io.brook.protocol.ApiRegistry;
import io.brook.protocol.testing.TestHandlers;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.params.provider.Arguments;

/** Every API key and version kafka-clients knows, for codec tests. */
final class ProtocolCases {
  private ProtocolCases() {}

  /** (ApiKeys, version) for every version of every API with versions, unstable ones included. */
  static Stream<Arguments> everyApiAndVersion() {
    List<Arguments> cases = new ArrayList<>();
    for (ApiKeys apiKey : ApiKeys.values()) {
      if (!apiKey.hasValidVersion()) {
        continue;
      }
      for (short version = apiKey.oldestVersion();
          version <= apiKey.latestVersion(true);
          version++) {
        cases.add(Arguments.of(apiKey, version));
      }
    }
    return cases.stream();
  }

  /** A registry serving every version of every API kafka-clients can decode. */
  static ApiRegistry servingEverything() {
    List<ApiHandler> handlers = new ArrayList<>();
    for (ApiKeys apiKey : ApiKeys.values()) {
      if (apiKey.hasValidVersion() && apiKey != ApiKeys.API_VERSIONS) {
        handlers.add(
            TestHandlers.answering(
                apiKey, apiKey.oldestVersion(), apiKey.latestVersion(true), (c, r) -> null));
      }
    }
    return new ApiRegistry(handlers);
  }
}
