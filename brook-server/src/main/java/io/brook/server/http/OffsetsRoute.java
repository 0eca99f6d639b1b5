package io.brook.server.http;

import static io.brook.broker.api.InProcessApis.mutable;

import io.brook.broker.api.InProcessApis;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;

/**
 * Where a fetch by time, or from {@code earliest} or {@code latest}, starts: one ListOffsets
 * through the broker's handler (DESCRIBE authorization; tiered segments searched as for a Kafka
 * consumer's {@code offsetsForTimes}), at the partition's leader. A time after every record
 * resolves to the end of the partition, so the fetch waits there for the next record.
 */
final class OffsetsRoute {
  /** How long the leader may take to search tiered segments for a time. */
  private static final int TIMEOUT_MS = 30_000;

  private final InProcessApis apis;
  private final AtLeader leaders;

  OffsetsRoute(InProcessApis apis, AtLeader leaders) {
    this.apis = apis;
    this.leaders = leaders;
  }

  /** The offset to read from and the throttle of the requests that found it. */
  record Start(long offset, int throttleMs) {}

  /**
   * @param timestamp a time in milliseconds, or {@link ListOffsetsRequest#EARLIEST_TIMESTAMP} or
   *     {@link ListOffsetsRequest#LATEST_TIMESTAMP} (the last stable offset under read_committed)
   */
  CompletableFuture<Start> resolve(
      String topic,
      int partition,
      long timestamp,
      boolean readCommitted,
      InProcessApis.Caller caller) {
    return list(topic, partition, timestamp, readCommitted, caller)
        .thenCompose(
            found -> {
              if (found.offset() >= 0 || timestamp < 0) {
                return CompletableFuture.completedFuture(found);
              }
              // No record at or after the time: start at the end, as a consumer would.
              return list(
                      topic, partition, ListOffsetsRequest.LATEST_TIMESTAMP, readCommitted, caller)
                  .thenApply(end -> new Start(end.offset(), end.throttleMs() + found.throttleMs()));
            });
  }

  private CompletableFuture<Start> list(
      String topic,
      int partition,
      long timestamp,
      boolean readCommitted,
      InProcessApis.Caller caller) {
    return leaders
        .partition(
            topic,
            partition,
            apis.<ListOffsetsResponseData>call(
                ApiKeys.LIST_OFFSETS,
                (short) 10,
                request(topic, partition, timestamp, readCommitted),
                caller,
                0),
            response -> error(response) == Errors.NOT_LEADER_OR_FOLLOWER,
            ApiKeys.LIST_OFFSETS,
            () -> request(topic, partition, timestamp, readCommitted),
            TIMEOUT_MS,
            false)
        .thenApply(
            answer -> {
              Errors error = error(answer.response());
              if (error != Errors.NONE) {
                throw new HttpApiException(
                    error, error.message() + " (topic " + topic + ", partition " + partition + ")");
              }
              long offset = answer.response().topics().get(0).partitions().get(0).offset();
              return new Start(offset, answer.throttleMs());
            });
  }

  private static ListOffsetsRequestData request(
      String topic, int partition, long timestamp, boolean readCommitted) {
    return new ListOffsetsRequestData()
        .setReplicaId(-1)
        .setIsolationLevel((byte) (readCommitted ? 1 : 0))
        .setTimeoutMs(TIMEOUT_MS)
        .setTopics(
            mutable(
                new ListOffsetsRequestData.ListOffsetsTopic()
                    .setName(topic)
                    .setPartitions(
                        mutable(
                            new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(partition)
                                .setCurrentLeaderEpoch(-1)
                                .setTimestamp(timestamp)))));
  }

  private static Errors error(ListOffsetsResponseData response) {
    if (response.topics().isEmpty() || response.topics().get(0).partitions().isEmpty()) {
      return Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }
    return Errors.forCode(response.topics().get(0).partitions().get(0).errorCode());
  }
}
