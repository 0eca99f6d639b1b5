package io.brook.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.testing.ManualTime;
import org.junit.jupiter.api.Test;

class ThrottlerTest {
  @Test
  void holdsTheRateToTheCapOnTheInjectedClock() {
    // Given: 1 MB/s
    ManualTime time = new ManualTime();
    Throttler throttler = new Throttler(1_000_000, time);
    long start = time.milliseconds();

    // When: 10 MB in 64 KB chunks, with no time passing except the throttler's own sleeps
    for (int i = 0; i < 160; i++) {
      throttler.maybeThrottle(64_000);
    }

    // Then: about ten seconds of (virtual) time went by
    long elapsed = time.milliseconds() - start;
    assertThat(elapsed).isBetween(9_000L, 11_000L);
  }

  @Test
  void anUnlimitedThrottlerNeverSleeps() {
    ManualTime time = new ManualTime();
    Throttler throttler = new Throttler(Double.MAX_VALUE, time);
    throttler.maybeThrottle(Long.MAX_VALUE / 2);
    assertThat(time.milliseconds()).isEqualTo(new ManualTime().milliseconds());
  }
}
