package io.brook.coordinator.service;

import io.brook.coordinator.InternalTopic;
import java.util.concurrent.CompletableFuture;
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

/**
 * The transaction coordinator as the broker's API layer calls it: one method per Kafka transaction
 * API, taking the decoded request body and {@link RequestInfo} and completing with the whole
 * response body, in the shape of the request's version. Coordinator errors are answered inside the
 * response; a future that fails anyway is answered by the API layer with the API's generic error
 * response for that failure.
 */
public interface TransactionCoordinatorService {
  /**
   * The newest version of {@code api} this coordinator serves (the oldest is kafka-clients'
   * oldest); the broker advertises and accepts no more.
   */
  short maxVersion(ApiKeys api);

  /** The coordinator topic, {@code __transaction_state}, as FindCoordinator creates it. */
  InternalTopic stateTopic();

  /** The {@code __transaction_state} partition that owns {@code transactionalId}. */
  int partitionFor(String transactionalId);

  CompletableFuture<InitProducerIdResponseData> initProducerId(
      RequestInfo info, InitProducerIdRequestData request);

  CompletableFuture<AddPartitionsToTxnResponseData> addPartitionsToTxn(
      RequestInfo info, AddPartitionsToTxnRequestData request);

  CompletableFuture<AddOffsetsToTxnResponseData> addOffsetsToTxn(
      RequestInfo info, AddOffsetsToTxnRequestData request);

  CompletableFuture<EndTxnResponseData> endTxn(RequestInfo info, EndTxnRequestData request);

  CompletableFuture<DescribeTransactionsResponseData> describeTransactions(
      RequestInfo info, DescribeTransactionsRequestData request);

  CompletableFuture<ListTransactionsResponseData> listTransactions(
      RequestInfo info, ListTransactionsRequestData request);
}
