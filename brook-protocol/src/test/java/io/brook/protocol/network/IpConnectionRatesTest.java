package io.brook.protocol.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IpConnectionRatesTest {
  private final AtomicLong clockMs = new AtomicLong(1_000_000L);
  private final IpConnectionRates rates = new IpConnectionRates(clockMs::get);
  private final InetAddress a = address(1);
  private final InetAddress b = address(2);

  @Test
  void withoutQuotasNothingIsMeasured() {
    for (int i = 0; i < 1000; i++) {
      assertThat(rates.throttleMs(a)).isZero();
    }
    assertThat(rates.trackedAddresses()).isZero();
  }

  @Test
  void anAddressOverItsQuotaIsThrottledForAtMostOneWindowAndNotCounted() {
    // 2 a second over 11 windows of 1 s: a fresh address may open 2 x 10 s worth (the rate's
    // window is never counted as shorter than 10 windows), then it is over.
    rates.update(new IpConnectionRates.Quotas(Map.of(a, 2), IpConnectionRates.UNLIMITED, 11, 1));
    for (int i = 0; i < 20; i++) {
      assertThat(rates.throttleMs(a)).as("connection %d", i).isZero();
    }
    long throttle = rates.throttleMs(a);
    assertThat(throttle).isBetween(1L, 1000L);
    for (int i = 0; i < 50; i++) {
      assertThat(rates.throttleMs(a)).isPositive();
    }
    assertThat(rates.throttleMs(b)).as("another address is not limited").isZero();

    // The refused connections did not count: once the measured span has grown by almost a second,
    // 21 connections are within 2 a second again (71 would not be).
    clockMs.addAndGet(1999);
    assertThat(rates.throttleMs(a)).isZero();
    assertThat(rates.throttleMs(a)).isPositive();
    assertThat(rates.throttledConnections()).isEqualTo(52);
  }

  @Test
  void theDefaultEntityLimitsEveryAddressWithoutItsOwnQuota() {
    rates.update(new IpConnectionRates.Quotas(Map.of(b, 1000), 1, 11, 1));
    int admitted = 0;
    while (rates.throttleMs(a) == 0) {
      admitted++;
    }
    assertThat(admitted).isEqualTo(10);
    for (int i = 0; i < 100; i++) {
      assertThat(rates.throttleMs(b)).isZero();
    }
  }

  @Test
  void aChangedQuotaAppliesToTheNextConnection() {
    rates.update(new IpConnectionRates.Quotas(Map.of(a, 1), IpConnectionRates.UNLIMITED, 11, 1));
    while (rates.throttleMs(a) == 0) {
      // use up the quota
    }
    rates.update(new IpConnectionRates.Quotas(Map.of(a, 100), IpConnectionRates.UNLIMITED, 11, 1));
    assertThat(rates.throttleMs(a)).isZero();
    rates.update(IpConnectionRates.Quotas.NONE);
    for (int i = 0; i < 2000; i++) {
      assertThat(rates.throttleMs(a)).isZero();
    }
  }

  private static InetAddress address(int last) {
    try {
      return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
