package io.brook.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.ClientQuotaRecord;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

class ClientQuotaManagerTest {
  private static RequestContext context(ApiKeys api, String clientId) {
    return new RequestContext(
        new RequestHeader(api, api.latestVersion(), clientId, 1),
        "PLAINTEXT",
        InetAddress.getLoopbackAddress(),
        "c1",
        System.nanoTime());
  }

  private static MetadataImage quota(String clientId, String key, double value) {
    return MetadataImage.EMPTY.apply(
        List.of(ClientQuotaRecord.of(Map.of("client-id", clientId), key, value, false)), 0);
  }

  @Test
  void aProducerOverItsQuotaIsThrottledAndOneWithoutKeepsGoing() {
    try (Metrics metrics = new Metrics()) {
      // Given: 1,000 B/s for "slow", over 11 windows of 1 s
      ClientQuotaManager quotas = new ClientQuotaManager(metrics, Time.SYSTEM, 11, 1);
      quotas.onMetadata(quota("slow", "producer_byte_rate", 1_000));
      ProduceRequestData produce = new ProduceRequestData();
      ProduceResponseData answer = new ProduceResponseData();

      // When: 10,000 bytes fit the first 10 s; 2,000 more are 20% over
      int first = quotas.onAnswered(context(ApiKeys.PRODUCE, "slow"), produce, 10_000, answer, 0);
      int second = quotas.onAnswered(context(ApiKeys.PRODUCE, "slow"), produce, 2_000, answer, 0);
      int free = quotas.onAnswered(context(ApiKeys.PRODUCE, "free"), produce, 1_000_000, answer, 0);

      // Then: about 2 s (the window grew a little while the test ran)
      assertThat(first).isZero();
      assertThat(second).isBetween(1_500, 2_200);
      assertThat(free).isZero();
      assertThat(
              metrics
                  .metric(
                      metrics.metricName(
                          "byte-rate",
                          "kafka.server.Produce",
                          "",
                          Map.of("user", "", "client-id", "slow")))
                  .metricValue())
          .isNotNull();
    }
  }

  @Test
  void followersAreNeverThrottledAndConsumersFetchAtMostAQuotaWindow() {
    try (Metrics metrics = new Metrics()) {
      ClientQuotaManager quotas = new ClientQuotaManager(metrics, Time.SYSTEM, 11, 1);
      quotas.onMetadata(quota("replica", "consumer_byte_rate", 1));
      FetchResponseData big =
          new FetchResponseData()
              .setResponses(
                  List.of(
                      new FetchResponseData.FetchableTopicResponse()
                          .setPartitions(
                              List.of(
                                  new FetchResponseData.PartitionData()
                                      .setRecords(
                                          org.apache.kafka.common.record.internal.MemoryRecords
                                              .withRecords(
                                                  org.apache.kafka.common.compress.Compression.NONE,
                                                  new org.apache.kafka.common.record.internal
                                                      .SimpleRecord(new byte[4096])))))));
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
