package io.brook.broker.quota;

import static io.brook.broker.quota.QuotaRequests.context;
import static io.brook.broker.quota.QuotaRequests.quota;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.time.MockTime;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class ClientQuotaManagerTest {
  @Test
  void aProducerOverItsQuotaIsThrottledAndOneWithoutKeepsGoing() {
    try (Metrics metrics = new Metrics()) {
      // Given: 1,000 B/s for "slow", with 11 windows of 1 s: a bucket of 10,000 bytes
      ClientQuotaManager quotas = new ClientQuotaManager(metrics, new MockTime(), 11, 1);
      quotas.onMetadata(quota("slow", "producer_byte_rate", 1_000));
      ProduceRequestData produce = new ProduceRequestData();
      ProduceResponseData answer = new ProduceResponseData();

      // When: 10,000 bytes empty the bucket; 2,000 more put it 2,000 bytes in debt
      int first = quotas.onAnswered(context(ApiKeys.PRODUCE, "slow"), produce, 10_000, answer, 0);
      int second = quotas.onAnswered(context(ApiKeys.PRODUCE, "slow"), produce, 2_000, answer, 0);
      int free = quotas.onAnswered(context(ApiKeys.PRODUCE, "free"), produce, 1_000_000, answer, 0);

      // Then: the 2 s the debt takes to refill
      assertThat(first).isZero();
      assertThat(second).isEqualTo(2_000);
      assertThat(free).isZero();
      assertThat(QuotaRequests.byteRate(metrics, "kafka.server.Produce", "slow")).isNotNull();
    }
  }

  @Test
  void followersAreNeverThrottledAndConsumersFetchAtMostAQuotaWindow() {
    try (Metrics metrics = new Metrics()) {
      ClientQuotaManager quotas = new ClientQuotaManager(metrics, new MockTime(), 11, 1);
      quotas.onMetadata(quota("replica", "consumer_byte_rate", 1));
      FetchResponseData big = QuotaRequests.fetchResponse(4096);
      FetchRequestData follower =
          new FetchRequestData()
              .setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(2));

      assertThat(quotas.onAnswered(context(ApiKeys.FETCH, "replica"), follower, 100, big, 0))
          .isZero();
      assertThat(
              quotas.onAnswered(
                  context(ApiKeys.FETCH, "replica"), new FetchRequestData(), 100, big, 0))
          .isPositive();
      // 1 B/s over the 10 complete windows
      assertThat(quotas.fetchQuotaWindowBytes(context(ApiKeys.FETCH, "replica"))).isEqualTo(10);
      assertThat(quotas.fetchQuotaWindowBytes(context(ApiKeys.FETCH, "other")))
          .isEqualTo(Integer.MAX_VALUE);
    }
  }
}
