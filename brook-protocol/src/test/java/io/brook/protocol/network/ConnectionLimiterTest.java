package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.network.ConnectionLimiter.Admission;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConnectionLimiterTest {
  private static final String L = "CLIENTS";
  private static final String REPLICATION = "REPLICATION";
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final InetAddress a = address(1);
  private final InetAddress b = address(2);

  @Test
  void limitsConnectionsPerAddress() {
    ConnectionLimiter limiter = new ConnectionLimiter(10, 2);

    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.TOO_MANY_FROM_ADDRESS);
    assertThat(limiter.tryAcquire(L, b)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.connections()).isEqualTo(3);

    limiter.release(L, a);
    assertThat(limiter.connections(a)).isEqualTo(1);
    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.ADMITTED);
  }

  @Test
  void anOverrideReplacesThePerAddressLimitForItsAddress() {
    ConnectionLimiter limiter = new ConnectionLimiter(10, 1, Map.of(a, 3));

    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.TOO_MANY_FROM_ADDRESS);
    assertThat(limiter.tryAcquire(L, b)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, b)).isEqualTo(Admission.TOO_MANY_FROM_ADDRESS);
  }

  @Test
  void overridesParseAndResolveHostsAndAddresses() {
    java.util.Map<String, Integer> parsed =
        io.brook.protocol.NetworkConfig.parseOverrides("127.0.0.1:5, localhost:7,::1:2");

    assertThat(parsed).containsEntry("127.0.0.1", 5).containsEntry("::1", 2);
    assertThat(ConnectionLimiter.resolve(Map.of("127.0.0.1", 5)))
        .containsEntry(InetAddress.getLoopbackAddress(), 5);
  }

  @Test
  void limitsConnectionsInTotal() {
    ConnectionLimiter limiter = new ConnectionLimiter(2, Integer.MAX_VALUE);

    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, b)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, b)).isEqualTo(Admission.TOO_MANY_CONNECTIONS);
    assertThat(limiter.connections(b)).isEqualTo(1);

    limiter.release(L, b);
    limiter.release(L, a);
    assertThat(limiter.connections()).isZero();
    assertThat(limiter.connections(a)).isZero();
  }

  @Test
  void limitsConnectionsPerListener() {
    ConnectionLimiter limiter =
        limiter(10, new AcceptLimits(Integer.MAX_VALUE, Map.of(L, limits(1, MAX)), null));

    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, b)).isEqualTo(Admission.TOO_MANY_CONNECTIONS);
    assertThat(limiter.tryAcquire(REPLICATION, b)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.listenerConnections(L)).isEqualTo(1);

    limiter.release(L, a);
    assertThat(limiter.slotAvailable(L)).isTrue();
    assertThat(limiter.tryAcquire(L, b)).isEqualTo(Admission.ADMITTED);
  }

  @Test
  void theInterBrokerListenerIsExemptFromTheBrokerWideLimitButNotItsOwn() {
    ConnectionLimiter limiter =
        limiter(
            1,
            new AcceptLimits(Integer.MAX_VALUE, Map.of(REPLICATION, limits(2, MAX)), REPLICATION));

    assertThat(limiter.tryAcquire(L, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(L, b)).isEqualTo(Admission.TOO_MANY_CONNECTIONS);
    assertThat(limiter.tryAcquire(REPLICATION, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(REPLICATION, b)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(REPLICATION, b)).isEqualTo(Admission.TOO_MANY_CONNECTIONS);
    assertThat(limiter.connections()).isEqualTo(3);
  }

  @Test
  void aSingleListenerIsNotExemptEvenIfItIsTheInterBrokerOne() {
    ConnectionLimiter limiter =
        new ConnectionLimiter(
            1, MAX, Map.of(), new AcceptLimits(MAX, Map.of(), REPLICATION), 1, clock::get);

    assertThat(limiter.tryAcquire(REPLICATION, a)).isEqualTo(Admission.ADMITTED);
    assertThat(limiter.tryAcquire(REPLICATION, b)).isEqualTo(Admission.TOO_MANY_CONNECTIONS);
  }

  @Test
  void theCreationRateLetsASecondsWorthThroughThenPacesTheRest() {
    ConnectionLimiter limiter = limiter(MAX, new AcceptLimits(2, Map.of(), REPLICATION));

    assertThat(limiter.throttleNanos(L)).isZero();
    assertThat(limiter.throttleNanos(L)).isZero();
    assertThat(limiter.throttleNanos(L)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
    assertThat(limiter.throttleNanos(L)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1000));
    assertThat(limiter.throttledConnections()).isEqualTo(2);
    // The inter-broker listener is exempt from the broker-wide rate.
    assertThat(limiter.throttleNanos(REPLICATION)).isZero();

    // When the paced connections are long past
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(2500));

    // Then a second's worth goes through again
    assertThat(limiter.throttleNanos(L)).isZero();
    assertThat(limiter.throttleNanos(L)).isZero();
    assertThat(limiter.throttleNanos(L)).isPositive();
  }

  @Test
  void aListenersCreationRateAppliesToThatListenerOnly() {
    ConnectionLimiter limiter =
        limiter(MAX, new AcceptLimits(MAX, Map.of(REPLICATION, limits(MAX, 1)), REPLICATION));

    assertThat(limiter.throttleNanos(REPLICATION)).isZero();
    assertThat(limiter.throttleNanos(REPLICATION)).isEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(limiter.throttleNanos(L)).isZero();
    assertThat(limiter.throttleNanos(L)).isZero();
  }

  private static final int MAX = Integer.MAX_VALUE;

  private ConnectionLimiter limiter(int maxConnections, AcceptLimits limits) {
    return new ConnectionLimiter(maxConnections, MAX, Map.of(), limits, 2, clock::get);
  }

  private static AcceptLimits.ListenerLimits limits(int maxConnections, int rate) {
    return new AcceptLimits.ListenerLimits(maxConnections, rate);
  }

  private static InetAddress address(int last) {
    try {
      return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
