package io.brook.coordinator.txn.api;

import io.brook.coordinator.api.GroupApi;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.coordinator.txn.TxnMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TransactionState;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DescribeTransactions: the state of transactional ids this broker coordinates. */
public final class DescribeTransactionsHandler extends GroupApi {
  private final TransactionCoordinator coordinator;

  public DescribeTransactionsHandler(TransactionCoordinator coordinator) {
    super(ApiKeys.DESCRIBE_TRANSACTIONS);
    this.coordinator = coordinator;
  }

  @Override
  public CompletionStage<ApiMessage> handle(RequestInfo context, ApiMessage message) {
    DescribeTransactionsRequestData request = (DescribeTransactionsRequestData) message;
    List<CompletableFuture<TransactionState>> states = new ArrayList<>();
    for (String id : request.transactionalIds()) {
      states.add(describe(id));
    }
    return CompletableFuture.allOf(states.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              DescribeTransactionsResponseData response = new DescribeTransactionsResponseData();
              states.forEach(s -> response.transactionStates().add(s.join()));
              return response;
            });
  }

  private CompletableFuture<TransactionState> describe(String id) {
    TransactionState state = new TransactionState().setTransactionalId(id);
    if (id == null || id.isEmpty()) {
      return CompletableFuture.completedFuture(
          state.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code()));
    }
    return coordinator
        .run(id, shard -> CompletableFuture.completedFuture(shard.describe(id)))
        .handle(
            (found, failure) -> {
              if (failure != null) {
                return state.setErrorCode(errorOf(failure).code());
              }
              return fill(state, found);
            });
  }

  private static TransactionState fill(TransactionState state, Optional<TxnMetadata> found) {
    if (found.isEmpty()) {
      return state.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
    }
    TxnMetadata txn = found.get();
    state
        .setErrorCode(Errors.NONE.code())
        .setTransactionState(txn.state().stateName())
        .setTransactionTimeoutMs(txn.timeoutMs())
        .setTransactionStartTimeMs(txn.startTimestampMs())
        .setProducerId(txn.producerId())
        .setProducerEpoch(txn.producerEpoch());
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    for (TopicPartition tp : txn.partitions()) {
      byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
    }
    byTopic.forEach(
        (topic, partitions) -> {
          partitions.sort(Integer::compare);
          state.topics().add(new TopicData().setTopic(topic).setPartitions(partitions));
        });
    return state;
  }
}
