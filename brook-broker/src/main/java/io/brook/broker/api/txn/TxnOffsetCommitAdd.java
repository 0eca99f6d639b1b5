package io.brook.broker.api.txn;

import io.brook.broker.txn.TxnPartitionVerifier;
import io.brook.coordinator.service.GroupCoordinatorService;
import io.brook.coordinator.service.RequestInfo;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * TxnOffsetCommit from version 5 (transaction protocol V2, KIP-890 part 2): the producer no longer
 * sends AddOffsetsToTxn, so the group's {@code __consumer_offsets} partition is added to its
 * transaction here, through the transaction coordinator (AddPartitionsToTxn with {@code
 * verifyOnly=false}, as a leader adds a partition on a transaction's first write), before the
 * offsets are handed to the group coordinator. Without the add the commit's markers would never
 * reach the offsets partition and the offsets would stay pending.
 */
public final class TxnOffsetCommitAdd {
  /** The first TxnOffsetCommit version a V2 producer sends without AddOffsetsToTxn. */
  static final short V2_VERSION = 5;

  private TxnOffsetCommitAdd() {}

  /** {@code commit}, preceded from version 5 on by the implicit add of the offsets partition. */
  public static BiFunction<
          RequestInfo, TxnOffsetCommitRequestData, CompletableFuture<TxnOffsetCommitResponseData>>
      wrap(
          GroupCoordinatorService groups,
          TxnPartitionVerifier verifier,
          BiFunction<
                  RequestInfo,
                  TxnOffsetCommitRequestData,
                  CompletableFuture<TxnOffsetCommitResponseData>>
              commit) {
    return (info, request) -> {
      if (info.apiVersion() < V2_VERSION) {
        return commit.apply(info, request);
      }
      TopicPartition offsets =
          new TopicPartition(groups.offsetsTopic().name(), groups.partitionFor(request.groupId()));
      return verifier
          .verify(
              request.transactionalId(),
              request.producerId(),
              request.producerEpoch(),
              List.of(offsets),
              false)
          .thenCompose(
              errors ->
                  errors.isEmpty()
                      ? commit.apply(info, request)
                      : CompletableFuture.completedFuture(
                          failed(request, clientError(errors, offsets))));
    };
  }

  /**
   * The add's error as the producer's TxnOffsetCommit handler understands it: retriable coordinator
   * trouble becomes COORDINATOR_NOT_AVAILABLE (it looks the group coordinator up again and
   * retries), markers still being written COORDINATOR_LOAD_IN_PROGRESS (it retries), the rest as
   * is.
   */
  private static Errors clientError(Map<TopicPartition, Errors> errors, TopicPartition offsets) {
    Errors error = errors.getOrDefault(offsets, Errors.UNKNOWN_SERVER_ERROR);
    return switch (error) {
      case CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS ->
          Errors.COORDINATOR_LOAD_IN_PROGRESS;
      case COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, NETWORK_EXCEPTION, REQUEST_TIMED_OUT ->
          Errors.COORDINATOR_NOT_AVAILABLE;
      case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
      default -> error;
    };
  }

  private static TxnOffsetCommitResponseData failed(
      TxnOffsetCommitRequestData request, Errors error) {
    TxnOffsetCommitResponseData response = new TxnOffsetCommitResponseData();
    for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic : request.topics()) {
      TxnOffsetCommitResponseTopic answered =
          new TxnOffsetCommitResponseTopic().setName(topic.name()).setTopicId(topic.topicId());
      for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition p : topic.partitions()) {
        answered
            .partitions()
            .add(
                new TxnOffsetCommitResponsePartition()
                    .setPartitionIndex(p.partitionIndex())
                    .setErrorCode(error.code()));
      }
      response.topics().add(answered);
    }
    return response;
  }
}
