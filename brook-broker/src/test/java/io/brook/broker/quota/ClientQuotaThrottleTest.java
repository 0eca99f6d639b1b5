package io.brook.broker.quota;

import static io.brook.broker.quota.QuotaRequests.context;
import static io.brook.broker.quota.QuotaRequests.quota;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.time.MockTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * The sequence of throttle times a client sees under a byte-rate quota, on a mock clock: clients
 * that honour {@code throttle_time_ms} (as kafka-clients does, and as the muted channel forces)
 * send their next request when it has passed.
 */
class ClientQuotaThrottleTest {
  private static final int QUOTA = 1024 * 1024;
  private static final int REQUEST_BYTES = 16 * 1024;

  /** The client's turnaround between a response and its next request when not throttled. */
  private static final long TURNAROUND_MS = 1;

  private final MockTime time = new MockTime();

  private ClientQuotaManager manager(Metrics metrics, String key) {
    ClientQuotaManager quotas = new ClientQuotaManager(metrics, time, 11, 1);
    quotas.onMetadata(quota("app", key, QUOTA));
    return quotas;
  }

  private int produce(ClientQuotaManager quotas, int bytes) {
    return quotas.onAnswered(
        context(ApiKeys.PRODUCE, "app"),
        new ProduceRequestData(),
        bytes,
        new ProduceResponseData(),
        0);
  }

  /**
   * A producer at full speed for {@code seconds}: the bytes admitted in each second, while it waits
   * out every throttle before its next request.
   */
  private long[] saturate(ClientQuotaManager quotas, int seconds) {
    long start = time.milliseconds();
    long[] perSecond = new long[seconds];
    while (time.milliseconds() - start < seconds * 1000L) {
      int second = (int) ((time.milliseconds() - start) / 1000);
      perSecond[second] += REQUEST_BYTES;
      int throttleMs = produce(quotas, REQUEST_BYTES);
      time.sleep(Math.max(TURNAROUND_MS, throttleMs));
    }
    return perSecond;
  }

  @Test
  void aSaturatingProducerIsHeldToItsQuotaEverySecondAfterTheFirst() {
    try (Metrics metrics = new Metrics(time)) {
      ClientQuotaManager quotas = manager(metrics, "producer_byte_rate");

      long[] perSecond = saturate(quotas, 60);

      // The first second carries the initial burst: the full bucket (10 s of quota) plus a second
      // of refill; then every second within ±15% of the quota (a sampled rate would admit ~0 for
      // most seconds and a burst of ~10 s of quota whenever an old sample leaves the window)
      assertThat(perSecond[0]).isBetween(10L * QUOTA, 11L * QUOTA + REQUEST_BYTES);
      List<Long> offQuota = new ArrayList<>();
      for (int s = 1; s < perSecond.length; s++) {
        if (Math.abs(perSecond[s] - QUOTA) > 0.15 * QUOTA) {
          offQuota.add((long) s);
        }
      }
      assertThat(offQuota).as("seconds off the quota by more than 15%").isEmpty();
    }
  }

  @Test
  void eachThrottleIsAboutOneRequestOverTheQuota() {
    try (Metrics metrics = new Metrics(time)) {
      ClientQuotaManager quotas = manager(metrics, "producer_byte_rate");
      saturate(quotas, 15); // past the initial burst and its debt

      // Steady state: the bucket is back at zero at every request, which puts it one request in
      // debt: 16 KiB at 1 MiB/s is 15.6 ms
      for (int i = 0; i < 100; i++) {
        int throttleMs = produce(quotas, REQUEST_BYTES);
        assertThat(throttleMs).isBetween(15, 16);
        time.sleep(throttleMs);
      }
    }
  }

  @Test
  void aClientUnderItsQuotaIsNeverThrottled() {
    try (Metrics metrics = new Metrics(time)) {
      ClientQuotaManager quotas = manager(metrics, "producer_byte_rate");

      // 90% of the quota for a minute, from the first request: 16 KiB every 17.4 ms
      long intervalMs = Math.round(REQUEST_BYTES / (0.9 * QUOTA) * 1000);
      for (int i = 0; i < 60_000 / intervalMs; i++) {
        assertThat(produce(quotas, REQUEST_BYTES)).as("request %d", i).isZero();
        time.sleep(intervalMs);
      }
      // and bursts within the bucket on top of a steady rate under the quota
      time.sleep(5_000);
      assertThat(produce(quotas, 5 * QUOTA)).isZero();
    }
  }

  @Test
  void aBurstAfterIdlingIsCappedByTheBucket() {
    try (Metrics metrics = new Metrics(time)) {
      ClientQuotaManager quotas = manager(metrics, "producer_byte_rate");
      saturate(quotas, 15);

      // Idle for a minute: the bucket refills to 10 windows of the quota, not more
      time.sleep(60_000);
      long admitted = 0;
      int throttleMs = 0;
      while (throttleMs == 0) {
        admitted += REQUEST_BYTES;
        throttleMs = produce(quotas, REQUEST_BYTES);
        time.sleep(TURNAROUND_MS);
      }

      // The burst is the bucket plus what refilled meanwhile (1 ms per request)
      assertThat(admitted).isBetween(10L * QUOTA, 11L * QUOTA);
      assertThat(throttleMs).isLessThanOrEqualTo(16);
    }
  }

  @Test
  void aConsumerIsThrottledByTheBytesItWasReturned() {
    try (Metrics metrics = new Metrics(time)) {
      ClientQuotaManager quotas = manager(metrics, "consumer_byte_rate");
      FetchResponseData fetched = QuotaRequests.fetchResponse(QUOTA);
      int recordBytes = QuotaRequests.recordBytes(fetched);

      // The bucket holds 10 windows of the quota: 9 of these responses, the 10th takes it into
      // debt by its batch overhead; from then on each response, fetched as soon as allowed, is
      // throttled for its own size at the quota
      for (int i = 0; i < 9; i++) {
        assertThat(fetch(quotas, fetched)).isZero();
      }
      time.sleep(fetch(quotas, fetched));
      long expectedMs = Math.round(recordBytes * 1000.0 / QUOTA);
      for (int i = 0; i < 20; i++) {
        int throttleMs = fetch(quotas, fetched);
        assertThat(throttleMs).isBetween((int) expectedMs - 1, (int) expectedMs + 1);
        time.sleep(throttleMs);
      }
    }
  }

  private static int fetch(ClientQuotaManager quotas, FetchResponseData fetched) {
    return quotas.onAnswered(
        context(ApiKeys.FETCH, "app"), new FetchRequestData(), 100, fetched, 0);
  }

  @Test
  void theRateIsStillReportedAsByteRate() {
    try (Metrics metrics = new Metrics(time)) {
      ClientQuotaManager quotas = manager(metrics, "producer_byte_rate");
      saturate(quotas, 30);

      // The 11 s window after 30 s at the quota (the burst has left it)
      double rate = QuotaRequests.byteRate(metrics, "kafka.server.Produce", "app");
      assertThat(rate).isBetween(0.85 * QUOTA, 1.15 * QUOTA);
    }
  }
}
