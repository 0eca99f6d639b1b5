package io.brook.coordinator.txn.api;

import io.brook.coordinator.InternalTopic;
import io.brook.coordinator.api.GroupApi;
import io.brook.coordinator.api.ServedApis;
import io.brook.coordinator.service.RequestInfo;
import io.brook.coordinator.service.TransactionCoordinatorService;
import io.brook.coordinator.txn.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.utils.Time;

/**
 * The transaction coordinator's service: each Kafka transaction API served by its {@link GroupApi},
 * which turns the request into work on the owning shard and its answer into the response of the
 * request's version.
 */
public final class TransactionService implements TransactionCoordinatorService {
  private final TransactionCoordinator coordinator;
  private final GroupApi initProducerId;
  private final GroupApi addPartitions;
  private final GroupApi addOffsets;
  private final GroupApi endTxn;
  private final GroupApi describe;
  private final GroupApi list;
  private final ServedApis served;

  /**
   * @param groupPartition the {@code __consumer_offsets} partition of a group id, for
   *     AddOffsetsToTxn
   */
  public TransactionService(
      TransactionCoordinator coordinator, ToIntFunction<String> groupPartition, Time time) {
    this.coordinator = coordinator;
    this.initProducerId = new InitProducerIdHandler(coordinator);
    this.addPartitions = new AddPartitionsToTxnHandler(coordinator);
    this.addOffsets = new AddOffsetsToTxnHandler(coordinator, groupPartition);
    this.endTxn = new EndTxnHandler(coordinator);
    this.describe = new DescribeTransactionsHandler(coordinator);
    this.list = new ListTransactionsHandler(coordinator, time);
    this.served = new ServedApis(initProducerId, addPartitions, addOffsets, endTxn, describe, list);
  }

  @Override
  public short maxVersion(ApiKeys api) {
    return served.maxVersion(api);
  }

  @Override
  public InternalTopic stateTopic() {
    return coordinator.stateTopic();
  }

  @Override
  public int partitionFor(String transactionalId) {
    return coordinator.partitionFor(transactionalId);
  }

  @Override
  public CompletableFuture<InitProducerIdResponseData> initProducerId(
      RequestInfo info, InitProducerIdRequestData request) {
    return initProducerId.serve(info, request, InitProducerIdResponseData.class);
  }

  @Override
  public CompletableFuture<AddPartitionsToTxnResponseData> addPartitionsToTxn(
      RequestInfo info, AddPartitionsToTxnRequestData request) {
    return addPartitions.serve(info, request, AddPartitionsToTxnResponseData.class);
  }

  @Override
  public CompletableFuture<AddOffsetsToTxnResponseData> addOffsetsToTxn(
      RequestInfo info, AddOffsetsToTxnRequestData request) {
    return addOffsets.serve(info, request, AddOffsetsToTxnResponseData.class);
  }

  @Override
  public CompletableFuture<EndTxnResponseData> endTxn(RequestInfo info, EndTxnRequestData request) {
    return endTxn.serve(info, request, EndTxnResponseData.class);
  }

  @Override
  public CompletableFuture<DescribeTransactionsResponseData> describeTransactions(
      RequestInfo info, DescribeTransactionsRequestData request) {
    return describe.serve(info, request, DescribeTransactionsResponseData.class);
  }

  @Override
  public CompletableFuture<ListTransactionsResponseData> listTransactions(
      RequestInfo info, ListTransactionsRequestData request) {
    return list.serve(info, request, ListTransactionsResponseData.class);
  }
}
