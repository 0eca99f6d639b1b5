package io.brook.broker.quota;

import io.brook.metadata.image.MetadataImage;
import io.brook.metadata.record.ClientQuotaRecord;
import io.brook.protocol.RequestContext;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;

/** Requests and responses of a client, as the quota manager is shown them. */
final class QuotaRequests {
  private QuotaRequests() {}

  static RequestContext context(ApiKeys api, String clientId) {
    return new RequestContext(
        new RequestHeader(api, api.latestVersion(), clientId, 1),
        "PLAINTEXT",
        InetAddress.getLoopbackAddress(),
        "c1",
        System.nanoTime());
  }

  /** A fetch response of one partition holding one record of {@code valueBytes}. */
  static FetchResponseData fetchResponse(int valueBytes) {
    return new FetchResponseData()
        .setResponses(
            List.of(
                new FetchResponseData.FetchableTopicResponse()
                    .setPartitions(
                        List.of(
                            new FetchResponseData.PartitionData()
                                .setRecords(
                                    MemoryRecords.withRecords(
                                        Compression.NONE,
                                        new SimpleRecord(new byte[valueBytes])))))));
  }

  /** The quota {@code key} of {@code value} for client id {@code clientId}. */
  static MetadataImage quota(String clientId, String key, double value) {
    return MetadataImage.EMPTY.apply(
        List.of(ClientQuotaRecord.of(Map.of("client-id", clientId), key, value, false)), 0);
  }

  /** The {@code byte-rate} of a client id's quota entity under {@code group}, null if none. */
  static Double byteRate(Metrics metrics, String group, String clientId) {
    KafkaMetric rate =
        metrics.metric(
            metrics.metricName("byte-rate", group, "", Map.of("user", "", "client-id", clientId)));
    return rate == null ? null : (Double) rate.metricValue();
  }

  /** The record bytes of a {@link #fetchResponse}. */
  static int recordBytes(FetchResponseData response) {
    return response.responses().get(0).partitions().get(0).records().sizeInBytes();
  }
}
