package io.brook.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.NetworkConfig.Listener;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NetworkConfigTest {

  @Test
  void defaultsAreKafkas() {
    NetworkConfig config = NetworkConfig.defaults(List.of(new Listener("PLAINTEXT", "", 9092)));

    assertThat(config.socketRequestMaxBytes()).isEqualTo(104857600);
    assertThat(config.maxConnections()).isEqualTo(Integer.MAX_VALUE);
    assertThat(config.maxConnectionsPerIp()).isEqualTo(Integer.MAX_VALUE);
    assertThat(config.connectionsMaxIdleMs()).isEqualTo(600000L);
    assertThat(config.numNetworkThreads()).isEqualTo(3);
    assertThat(config.queuedMaxRequests()).isEqualTo(500);
    assertThat(config.socketSendBufferBytes()).isEqualTo(102400);
    assertThat(config.socketReceiveBufferBytes()).isEqualTo(102400);
  }

  @Test
  void readsKafkaPropertyNames() {
    NetworkConfig config =
        NetworkConfig.fromProperties(
            Map.of(
                "listeners", "PLAINTEXT://:9092, INTERNAL://127.0.0.1:0,V6://[::1]:9094",
                "socket.request.max.bytes", "1024",
                "max.connections", 7,
                "max.connections.per.ip", "3",
                "connections.max.idle.ms", "1000",
                "num.network.threads", "2",
                "queued.max.requests", "9",
                "socket.send.buffer.bytes", "-1",
                "socket.receive.buffer.bytes", "65536"));

    assertThat(config.listeners())
        .containsExactly(
            new Listener("PLAINTEXT", "", 9092),
            new Listener("INTERNAL", "127.0.0.1", 0),
            new Listener("V6", "::1", 9094));
    assertThat(config)
        .extracting(
            NetworkConfig::socketRequestMaxBytes,
            NetworkConfig::maxConnections,
            NetworkConfig::maxConnectionsPerIp,
            NetworkConfig::connectionsMaxIdleMs,
            NetworkConfig::numNetworkThreads,
            NetworkConfig::queuedMaxRequests)
        .containsExactly(1024, 7, 3, 1000L, 2, 9);
    assertThat(config.socketSendBufferBytes()).isEqualTo(NetworkConfig.OS_DEFAULT_BUFFER_BYTES);
    assertThat(config.socketReceiveBufferBytes()).isEqualTo(65536);
    assertThat(config.listener("V6").toString()).isEqualTo("V6://[::1]:9094");
  }

  @Test
  void refusesBadValues() {
    assertThatThrownBy(() -> NetworkConfig.fromProperties(Map.of()))
        .hasMessageContaining("listeners");
    assertThatThrownBy(() -> Listener.parse("localhost:9092"))
        .hasMessageContaining("NAME://host:port");
    assertThatThrownBy(() -> Listener.parse("A://h:port")).hasMessageContaining("numeric port");
    assertThatThrownBy(() -> new Listener("A", "h", 70000)).hasMessageContaining("out of range");
    assertThatThrownBy(
            () -> NetworkConfig.builder().listener("A", "", 1).listener("A", "", 2).build())
        .hasMessageContaining("listed twice");
    assertThatThrownBy(
            () -> NetworkConfig.builder().listener("A", "", 1).queuedMaxRequests(0).build())
        .hasMessageContaining("queued.max.requests");
    assertThatThrownBy(
            () ->
                NetworkConfig.fromProperties(
                    Map.of("listeners", "A://:1", "num.network.threads", "many")))
        .hasMessageContaining("num.network.threads");
    // -1 is the operating system's default; no socket takes a buffer of 0 or -2 bytes
    assertThatThrownBy(
            () -> NetworkConfig.builder().listener("A", "", 1).socketSendBufferBytes(0).build())
        .hasMessageContaining("socket.send.buffer.bytes");
    assertThatThrownBy(
            () -> NetworkConfig.builder().listener("A", "", 1).socketReceiveBufferBytes(-2).build())
        .hasMessageContaining("socket.receive.buffer.bytes");
  }
}
