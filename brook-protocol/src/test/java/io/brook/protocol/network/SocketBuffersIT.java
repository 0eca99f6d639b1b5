package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.brook.protocol.ApiRegistry;
import io.brook.protocol.NetworkConfig;
import io.brook.protocol.testing.SocketBuffers;
import io.brook.protocol.testing.TestServer;
import io.brook.protocol.testing.WireClient;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kafka's {@code socket.send.buffer.bytes} and {@code socket.receive.buffer.bytes} reach the
 * connections a listener accepts, read back from the accepted channel on each transport; -1 leaves
 * them as the kernel makes them.
 */
class SocketBuffersIT {

  static Stream<Transport> transports() {
    return Stream.of(Transport.detect(), Transport.NIO).distinct();
  }

  @ParameterizedTest
  @MethodSource("transports")
  void acceptedConnectionsGetTheConfiguredBufferSizes(Transport transport) throws Exception {
    // Given: sizes unlike any the kernel picks by itself
    int send = 60_000;
    int receive = 70_000;
    try (TestServer server =
            TestServer.start(
                ApiRegistry.of(),
                s -> s.socketSendBufferBytes(send).socketReceiveBufferBytes(receive),
                transport);
        WireClient client = server.connect()) {
      // When
      Channel accepted = acceptedChannel(server);

      // Then
      assertThat(accepted.config().getOption(ChannelOption.SO_SNDBUF))
          .isEqualTo(SocketBuffers.reportedFor(accepted, send, "wmem_max"));
      assertThat(accepted.config().getOption(ChannelOption.SO_RCVBUF))
          .isEqualTo(SocketBuffers.reportedFor(accepted, receive, "rmem_max"));
    }
  }

  @ParameterizedTest
  @MethodSource("transports")
  void minusOneLeavesTheBuffersAsTheKernelMakesThem(Transport transport) throws Exception {
    // Given: a server with -1 for both, and a plain socket accepted without any buffer option
    int[] plain = plainAcceptedBuffers();
    try (TestServer server =
            TestServer.start(
                ApiRegistry.of(),
                s ->
                    s.socketSendBufferBytes(NetworkConfig.OS_DEFAULT_BUFFER_BYTES)
                        .socketReceiveBufferBytes(NetworkConfig.OS_DEFAULT_BUFFER_BYTES),
                transport);
        WireClient client = server.connect()) {
      // When
      Channel accepted = acceptedChannel(server);

      // Then: the same sizes as the plain socket, which no option fixed
      assertThat(accepted.config().getOption(ChannelOption.SO_SNDBUF))
          .isEqualTo(SocketBuffers.asReported(accepted, SocketBuffers.kernelBytesOfJdk(plain[0])));
      assertThat(accepted.config().getOption(ChannelOption.SO_RCVBUF))
          .isEqualTo(SocketBuffers.asReported(accepted, SocketBuffers.kernelBytesOfJdk(plain[1])));
    }
  }

  /** The one connection the server has accepted, once it has. */
  private static Channel acceptedChannel(TestServer server) {
    await().atMost(Duration.ofSeconds(10)).until(() -> server.server().openChannels().size() == 1);
    List<Channel> channels = server.server().openChannels();
    assertThat(channels).hasSize(1);
    return channels.get(0);
  }

  /** SO_SNDBUF and SO_RCVBUF of a loopback connection accepted with the kernel's defaults. */
  private static int[] plainAcceptedBuffers() throws IOException {
    try (ServerSocketChannel listener = ServerSocketChannel.open()) {
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (SocketChannel client = SocketChannel.open(listener.getLocalAddress());
          SocketChannel accepted = listener.accept()) {
        return new int[] {
          accepted.getOption(StandardSocketOptions.SO_SNDBUF),
          accepted.getOption(StandardSocketOptions.SO_RCVBUF)
        };
      }
    }
  }
}
