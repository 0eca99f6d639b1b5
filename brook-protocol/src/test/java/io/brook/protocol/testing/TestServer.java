package io.brook.protocol.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.network.KafkaNetworkServer;
import io.brook.protocol.network.Transport;
import java.io.IOException;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** A {@link KafkaNetworkServer} on 127.0.0.1 and an ephemeral port, for one test. */
public final class TestServer implements AutoCloseable {
  public static final String LISTENER = "PLAINTEXT";

  private final KafkaNetworkServer server;
  private final ApiRegistry registry;

  private TestServer(KafkaNetworkServer server, ApiRegistry registry) {
    this.server = server;
    this.registry = registry;
  }

  public static TestServer start(ApiRegistry registry) {
    return start(registry, settings -> settings);
  }

  public static TestServer start(
      ApiRegistry registry, UnaryOperator<NetworkConfig.Builder> settings) {
    return start(registry, settings, Transport.detect());
  }

  public static TestServer start(
      ApiRegistry registry, UnaryOperator<NetworkConfig.Builder> settings, Transport transport) {
    NetworkConfig config =
        settings
            .apply(NetworkConfig.builder().listener(LISTENER, "127.0.0.1", 0).numNetworkThreads(2))
            .build();
    return new TestServer(KafkaNetworkServer.start(config, registry, transport), registry);
  }

  public int port() {
    return server.boundPort(LISTENER);
  }

  public KafkaNetworkServer server() {
    return server;
  }

  public WireClient connect() throws IOException {
    return WireClient.connect(port());
  }

  /** A new connection still gets a correct ApiVersions answer. */
  public void assertStillServes() throws IOException {
    try (WireClient client = connect()) {
      short version = 3;
      ApiVersionsResponseData response =
          client
              .roundTrip(
                  new ApiVersionsRequestData()
                      .setClientSoftwareName("wire-test")
                      .setClientSoftwareVersion("1.0"),
                  version)
              .as(ApiVersionsResponseData.class);
      assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
      assertThat(response.apiKeys()).isEqualTo(registry.versionTable());
      assertThat(response.apiKeys().find(ApiKeys.API_VERSIONS.id)).isNotNull();
    }
  }

  @Override
  public void close() {
    server.close(Duration.ofSeconds(2));
  }
}
