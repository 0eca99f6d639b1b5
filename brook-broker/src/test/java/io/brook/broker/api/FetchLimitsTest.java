package io.brook.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.message.FetchRequestData;
import org.junit.jupiter.api.Test;

/** The limits a Fetch request's fields become. */
class FetchLimitsTest {
  private static FetchHandler.Limits limits(int maxWaitMs, int minBytes, int maxBytes) {
    return FetchHandler.Limits.of(
        new FetchRequestData().setMaxWaitMs(maxWaitMs).setMinBytes(minBytes).setMaxBytes(maxBytes),
        Integer.MAX_VALUE);
  }

  @Test
  void aConsumersMaxBytesIsCappedByFetchMaxBytes() {
    FetchRequestData request =
        new FetchRequestData().setMaxWaitMs(500).setMinBytes(1 << 20).setMaxBytes(1 << 30);
    FetchHandler.Limits capped = FetchHandler.Limits.of(request, 4096);
    assertThat(capped.maxBytes()).isEqualTo(4096);
    assertThat(capped.minBytes()).isEqualTo(4096);
    assertThat(FetchHandler.Limits.of(request.setMaxBytes(100), 4096).maxBytes()).isEqualTo(100);
  }

  @Test
  void theWaitIsCappedAndANegativeOneStaysAnAnswerAtOnce() {
    assertThat(limits(Integer.MAX_VALUE, 1, 100).maxWaitMs()).isEqualTo(FetchHandler.MAX_WAIT_MS);
    assertThat(limits(500, 1, 100).maxWaitMs()).isEqualTo(500);
    assertThat(limits(-7, 1, 100).maxWaitMs()).isEqualTo(-7);
  }

  @Test
  void minBytesCountsAtMostMaxBytesAndMaxBytesIsNeverNegative() {
    assertThat(limits(0, 1 << 30, 100).minBytes()).isEqualTo(100);
    assertThat(limits(0, -3, 100).minBytes()).isEqualTo(-3);
    assertThat(limits(0, 1, -100).maxBytes()).isZero();
    assertThat(limits(0, 5, -100).minBytes()).isZero();
  }
}
