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
