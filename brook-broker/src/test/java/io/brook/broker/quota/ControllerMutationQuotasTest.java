package io.brook.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.ClientQuotaRecord;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/** The controller mutation quota's token bucket, with a clock the test moves. */
class ControllerMutationQuotasTest {
  private final ManualTime time = new ManualTime();

  /** A clock that moves only when told. */
  private static final class ManualTime implements Time {
    private long nowMs = 1_000_000;

    @Override
    public long milliseconds() {
      return nowMs;
    }

    @Override
    public long nanoseconds() {
      return nowMs * 1_000_000;
    }

    @Override
    public void sleep(long ms) {
      nowMs += ms;
    }

    @Override
    public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
      throw new UnsupportedOperationException();
    }
  }

  private static RequestContext context(String clientId) {
    return new RequestContext(
        new RequestHeader(ApiKeys.CREATE_TOPICS, (short) 7, clientId, 1),
        "PLAINTEXT",
        InetAddress.getLoopbackAddress(),
        "c1",
        System.nanoTime());
  }

  /** 10 partitions a second for {@code clientId}, over 2 windows of 1 s: a burst of 20. */
  private ControllerMutationQuotas quotas(Metrics metrics, String clientId) {
    ControllerMutationQuotas quotas = new ControllerMutationQuotas(metrics, time, 2, 1);
    quotas.onMetadata(
        MetadataImage.EMPTY.apply(
            List.of(
                ClientQuotaRecord.of(
                    Map.of("client-id", clientId), "controller_mutation_rate", 10, false)),
            0));
    return quotas;
  }

  @Test
  void aStrictRequestIsAdmittedUntilTheBucketIsInDebtThenRefused() {
    try (Metrics metrics = new Metrics(time)) {
      ControllerMutationQuotas quotas = quotas(metrics, "creator");
      MutationQuota quota = quotas.forRequest(context("creator"), true);

      // 20 fit the burst; 5 more are admitted into debt; then refused for the 0.5 s of refill
      assertThat(quota.admit(15)).isTrue();
      assertThat(quota.admit(5)).isTrue();
      assertThat(quota.admit(5)).isTrue();
      assertThat(quota.throttleTimeMs()).isZero();
      assertThat(quota.admit(1)).isFalse();
      assertThat(quota.throttleTimeMs()).isEqualTo(500);

      // Once refilled to zero, admitted again
      time.sleep(500);
      MutationQuota next = quotas.forRequest(context("creator"), true);
      assertThat(next.admit(3)).isTrue();
      assertThat(next.throttleTimeMs()).isZero();
    }
  }

  @Test
  void aPermissiveRequestIsAdmittedWholeAndThrottledForItsDebt() {
    try (Metrics metrics = new Metrics(time)) {
      ControllerMutationQuotas quotas = quotas(metrics, "old");
      MutationQuota quota = quotas.forRequest(context("old"), false);

      for (int i = 0; i < 8; i++) {
        assertThat(quota.admit(5)).isTrue();
      }

      // 40 against a burst of 20: 2 s to refill the debt
      assertThat(quota.throttleTimeMs()).isEqualTo(2_000);
    }
  }

  @Test
  void aClientWithoutAQuotaIsNeverRefused() {
    try (Metrics metrics = new Metrics(time)) {
      ControllerMutationQuotas quotas = quotas(metrics, "creator");
      MutationQuota quota = quotas.forRequest(context("other"), true);

      assertThat(quota.admit(10_000)).isTrue();
      assertThat(quota.admit(10_000)).isTrue();
      assertThat(quota.throttleTimeMs()).isZero();
    }
  }
}
