package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.network.ConnectionLimiter.Admission;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class ConnectionLimiterTest {
  private final InetAddress a = address(1);
  private final InetAddress b = address(2);

  @Test
  void limitsConnectionsPerAddress() {
    ConnectionLimiter limiter = new ConnectionLimiter(10, 2);

    assertThat(limiter.tryAcquire(a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(a)).isEqualTo(Admission.TOO_MANY_FROM_ADDRESS);
    assertThat(limiter.tryAcquire(b)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.connections()).isEqualTo(3);

    limiter.release(a);
    assertThat(limiter.connections(a)).isEqualTo(1);
    assertThat(limiter.tryAcquire(a)).isEqualTo(Admission.ADMITTED);
  }

  @Test
  void anOverrideReplacesThePerAddressLimitForItsAddress() {
    ConnectionLimiter limiter = new ConnectionLimiter(10, 1, java.util.Map.of(a, 3));

    assertThat(limiter.tryAcquire(a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(a)).isEqualTo(Admission.TOO_MANY_FROM_ADDRESS);
    assertThat(limiter.tryAcquire(b)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(b)).isEqualTo(Admission.TOO_MANY_FROM_ADDRESS);
  }

  @Test
  void overridesParseAndResolveHostsAndAddresses() {
    java.util.Map<String, Integer> parsed =
        io.brook.protocol.NetworkConfig.parseOverrides("127.0.0.1:5, localhost:7,::1:2");

    assertThat(parsed).containsEntry("127.0.0.1", 5).containsEntry("::1", 2);
    assertThat(ConnectionLimiter.resolve(java.util.Map.of("127.0.0.1", 5)))
        .containsEntry(InetAddress.getLoopbackAddress(), 5);
  }

  @Test
  void limitsConnectionsInTotal() {
    ConnectionLimiter limiter = new ConnectionLimiter(2, Integer.MAX_VALUE);

    assertThat(limiter.tryAcquire(a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(b)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(b)).isEqualTo(Admission.TOO_MANY_CONNECTIONS);
    assertThat(limiter.connections(b)).isEqualTo(1);

    limiter.release(b);
    limiter.release(a);
    assertThat(limiter.connections()).isZero();
    assertThat(limiter.connections(a)).isZero();
  }

  private static InetAddress address(int last) {
    try {
      return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
